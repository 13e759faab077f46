// The pointer lands on the desktop pixel under the person's mouse at any scale: the viewer
// draws the desktop scaled to fit, and sendMouseState(state, true) must undo exactly that scale.
// Checked from the X side with xdotool.
import { expect, test } from './fixtures.js';
import type { Page } from '@playwright/test';
import { pointerLocation, screenSize } from './support/xdesktop.js';

/** What the page has at `point` and its connection, for a failure to say where moves went. */
function underPointer(page: Page, point: { x: number; y: number }): Promise<unknown> {
  return page.evaluate(({ x, y }) => {
    const el = document.elementFromPoint(x, y);
    const name = (e: Element | null) =>
      e === null ? 'nothing' : `${e.tagName.toLowerCase()}.${Array.from(e.classList).join('.')}`;
    return {
      element: name(el),
      parent: name(el?.parentElement ?? null),
      status: document.querySelector('[data-testid="connection-label"]')?.textContent,
      toasts: Array.from(document.querySelectorAll('[data-testid="toast"]'), (t) => t.textContent),
    };
  }, point);
}

const TARGETS = [
  { x: 700, y: 700 },
  { x: 20, y: 15 },
  { x: 1100, y: 300 },
];

for (const viewport of [
  { width: 1280, height: 800 },
  { width: 700, height: 520 },
]) {
  test(`mouse moves reach the same desktop pixel in a ${viewport.width}×${viewport.height} window`, async ({
    page,
    stack,
    viewer,
  }) => {
    await page.setViewportSize(viewport);
    await viewer.open();
    await viewer.waitConnected();
    const desktop = await screenSize(stack.xEnv);
    for (const target of TARGETS) {
      const x = Math.min(target.x, desktop.width - 1);
      const y = Math.min(target.y, desktop.height - 1);
      const point = await viewer.pagePoint(desktop.width, x + 0.5, y + 0.5);
      await page.mouse.move(point.x, point.y);
      // One CSS pixel is up to 1/scale desktop pixels, so allow that much rounding.
      const box = await viewer.displayBox();
      const slack = Math.ceil(desktop.width / box.width) + 1;
      await expect
        .poll(
          async () => {
            // Moved again on each look, off by a pixel and back: the page sends the desktop no
            // move that repeats its last one (inputBindings.ts), so looking again at the same spot
            // would send nothing. CI twice saw the pointer stay put for the whole wait: the point
            // had been worked out from the display's box before the display had a size (see
            // support/displayBox.ts), so every move went to the middle of the window; what the
            // page has under the pointer is in the failure.
            await page.mouse.move(point.x + 1, point.y);
            await page.mouse.move(point.x, point.y);
            const at = await pointerLocation(stack.xEnv);
            if (Math.abs(at.x - x) <= slack && Math.abs(at.y - y) <= slack) return 'on target';
            return { desktopPointer: at, page: await underPointer(page, point) };
          },
          { timeout: 15_000 },
        )
        .toBe('on target');
    }
  });
}
