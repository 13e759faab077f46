// Page object for the viewer: opening it signed in (the page's browser context gets the
// admin's sign-in cookie first, as after signing in on /signin), reading the status bar, and
// converting desktop pixels to page coordinates through the scale the viewer applied.
import { expect, type Locator, type Page } from '@playwright/test';
import { signInContext, type SignInTarget } from '../support/signIn.js';
import { DISPLAY_SELECTOR, shownDisplayBox } from '../support/displayBox.js';
import type { Rect } from '../support/xdesktop.js';

/** Picks a scaling mode in the viewer's menu: "Fit to window" or "1:1, scroll". */
export async function chooseScaling(page: Page, label: string): Promise<void> {
  await page.getByRole('button', { name: 'Menu' }).click();
  await page.getByRole('radio', { name: label }).check();
  await page.getByRole('button', { name: 'Close' }).click();
}

export class ViewerPage {
  readonly status: Locator;
  readonly statusDetail: Locator;
  readonly keyboardTarget: Locator;
  /** The Guacamole display element (scaled bounds of the remote desktop). */
  readonly display: Locator;
  /** The focusable area around it that receives the keyboard. */
  readonly area: Locator;

  readonly url: string;

  constructor(
    readonly page: Page,
    private readonly stack: SignInTarget,
  ) {
    this.url = stack.url;
    this.status = page.getByTestId('connection-label');
    this.statusDetail = page.getByTestId('connection-detail');
    this.keyboardTarget = page.getByTestId('keyboard-target');
    this.display = page.locator(DISPLAY_SELECTOR);
    this.area = page.locator('[data-remote-display]');
  }

  /**
   * Signs the page's browser context in, then opens the viewer, with `query` (e.g. the seed's
   * crop `?vx=…&vy=…&vw=…&vh=…&scale=…`) when given.
   */
  async open(query = ''): Promise<void> {
    await signInContext(this.page.context(), this.stack);
    await this.page.goto(new URL(query, this.url).toString());
  }

  /** The part of the page that shows the desktop: the stage, which clips a cropped window. */
  async stageBox(): Promise<Rect> {
    const box = await this.page.locator('.remote-display__stage').boundingBox();
    if (!box) throw new Error('The remote display stage is not visible.');
    return box;
  }

  async chooseScaling(label: string): Promise<void> {
    await chooseScaling(this.page, label);
  }

  async waitConnected(timeout = 30_000): Promise<void> {
    await expect(this.status).toHaveText('Connected', { timeout });
  }

  /** Bounding box of the displayed desktop in page CSS pixels. */
  async displayBox(): Promise<Rect> {
    return shownDisplayBox(this.page);
  }

  async areaSize(): Promise<{ width: number; height: number }> {
    return this.area.evaluate((el) => ({ width: el.clientWidth, height: el.clientHeight }));
  }

  /** Page position of a desktop pixel, given the desktop's width in desktop pixels. */
  async pagePoint(desktopWidth: number, x: number, y: number): Promise<{ x: number; y: number }> {
    const box = await this.displayBox();
    const scale = box.width / desktopWidth;
    return { x: box.x + x * scale, y: box.y + y * scale };
  }
}
