// The remote display element's box on the page, once it shows the desktop. The viewer reads
// "Connected" as soon as the desktop answered; the Guacamole display element is 0×0 (centred in
// the stage) until the desktop's size arrives and the viewer scales it, a few frames later on a
// loaded machine. A page point worked out from that empty box is the middle of the stage, so
// every desktop pixel mapped to the desktop's centre (CI's pointer.spec once moved the mouse
// there for 15 s). Every mapping from desktop pixels to page points starts here.
import { expect, type Page } from '@playwright/test';
import type { Rect } from './xdesktop.js';

export const DISPLAY_SELECTOR = '.remote-display__canvas';

/** The display's box once it has a size (waits up to `timeout` ms for one). */
export async function shownDisplayBox(page: Page, timeout = 15_000): Promise<Rect> {
  let box: Rect | null = null;
  await expect
    .poll(
      async () => {
        box = await page.locator(DISPLAY_SELECTOR).boundingBox();
        return box !== null && box.width > 0 && box.height > 0;
      },
      { timeout, message: 'The remote display never got a size (no desktop picture shown).' },
    )
    .toBe(true);
  return box as unknown as Rect;
}
