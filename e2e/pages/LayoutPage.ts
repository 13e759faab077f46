// Page object for the layout editor (/layout), driven the way a person does: rectangles found by
// their accessible names ("Monitor 2 …", "Mask 1 …"), dragged and resized with the real mouse
// (down, moves, up), fields by their labels, buttons by their names. Reads a rectangle's desktop
// geometry from the data attributes the page renders beside its name.
import { expect, type Locator, type Page } from '@playwright/test';
import { PAGES } from '@overlay-companion/protocol';

export interface DesktopRect {
  x: number;
  y: number;
  width: number;
  height: number;
}

export type Handle = 'n' | 's' | 'e' | 'w' | 'ne' | 'nw' | 'se' | 'sw';

export class LayoutPage {
  readonly canvas: Locator;
  readonly saveButton: Locator;

  constructor(
    readonly page: Page,
    /** The bridge's base URL. */
    readonly url: string,
  ) {
    this.canvas = page.getByRole('group', { name: /^Desktop, / });
    this.saveButton = page.getByRole('button', { name: 'Save', exact: true });
  }

  async open(): Promise<void> {
    await this.page.goto(new URL(PAGES.layout, this.url).toString());
    await expect(this.page.getByRole('heading', { level: 1 })).toHaveText('Monitor layout');
    await expect(this.canvas).toBeVisible();
  }

  /** Monitor `index` (0-based, as the AI counts) on the picture. */
  monitor(index: number): Locator {
    return this.canvas.getByRole('button', { name: new RegExp(`^Monitor ${index + 1}\\b`) });
  }

  mask(index: number): Locator {
    return this.canvas.getByRole('button', { name: new RegExp(`^Mask ${index + 1}\\b`) });
  }

  /** The fieldset with a rectangle's exact values ("Monitor 2", "Mask 1"). */
  fields(name: string): Locator {
    return this.page.getByRole('group', { name: new RegExp(`^${name}\\b`) });
  }

  async rectOf(box: Locator): Promise<DesktopRect> {
    const read = async (name: string) => Number(await box.getAttribute(`data-${name}`));
    return {
      x: await read('x'),
      y: await read('y'),
      width: await read('width'),
      height: await read('height'),
    };
  }

  /** View pixels per desktop pixel, as the page drew the picture. */
  async scale(): Promise<number> {
    return Number(await this.canvas.getAttribute('data-scale'));
  }

  /** Scrolls the whole picture into the window (the mouse reaches only what is in view). */
  async showCanvas(): Promise<void> {
    await this.canvas.evaluate((el) => el.scrollIntoView({ block: 'center', inline: 'nearest' }));
  }

  /** Page coordinates of a desktop pixel on the picture (scrolled into view). */
  async pagePoint(x: number, y: number): Promise<{ x: number; y: number }> {
    await this.showCanvas();
    const box = await this.canvas.boundingBox();
    if (box === null) throw new Error('The desktop picture is not visible.');
    const scale = await this.scale();
    return { x: box.x + x * scale, y: box.y + y * scale };
  }

  /** Presses the mouse at `from` (page pixels), moves in steps to `to`, releases. */
  async mouseDrag(
    from: { x: number; y: number },
    to: { x: number; y: number },
    steps = 8,
  ): Promise<void> {
    await this.page.mouse.move(from.x, from.y);
    await this.page.mouse.down();
    await this.page.mouse.move(to.x, to.y, { steps });
    await this.page.mouse.up();
  }

  /** Drags a rectangle by its body by (dx, dy) page pixels, grabbing it at its centre. */
  async dragBy(box: Locator, dx: number, dy: number): Promise<void> {
    await this.showCanvas();
    const at = await box.boundingBox();
    if (at === null) throw new Error('The rectangle is not visible.');
    const from = { x: Math.round(at.x + at.width / 2), y: Math.round(at.y + at.height / 2) };
    await this.mouseDrag(from, { x: from.x + dx, y: from.y + dy });
  }

  /** Drags one of a rectangle's handles by (dx, dy) page pixels. */
  async dragHandle(box: Locator, handle: Handle, dx: number, dy: number): Promise<void> {
    await this.showCanvas();
    await box.hover();
    const grip = await box.locator(`[data-handle="${handle}"]`).boundingBox();
    if (grip === null) throw new Error(`The ${handle} handle is not visible.`);
    const from = {
      x: Math.round(grip.x + grip.width / 2),
      y: Math.round(grip.y + grip.height / 2),
    };
    await this.mouseDrag(from, { x: from.x + dx, y: from.y + dy });
  }

  /** Sets a screen's size by hand in its monitor's fields. */
  async setScreen(index: number, width: number, height: number): Promise<void> {
    const group = this.fields(`Monitor ${index + 1}`);
    await group.getByLabel('Screen width').fill(String(width));
    await group.getByLabel('Screen height').fill(String(height));
  }

  async addScreen(width: number, height: number): Promise<void> {
    const form = this.page.getByRole('form', { name: 'Add a screen by hand' });
    await form.getByLabel('Screen width').fill(String(width));
    await form.getByLabel('Screen height').fill(String(height));
    await form.getByRole('button', { name: 'Add screen' }).click();
  }

  async save(): Promise<void> {
    await this.saveButton.click();
    await expect(this.page.getByRole('status').filter({ hasText: /^Saved at / })).toBeVisible();
    await expect(this.page.getByText('Unsaved changes')).toHaveCount(0);
  }
}
