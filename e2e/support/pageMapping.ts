// Where to put the pointer on the page for a given desktop pixel, read from the page itself: the
// remote display element's box and the desktop's size give the scale, and a page coordinate is
// chosen well inside the pixel so no rounding anywhere can move it. For tests that draw on the
// desktop area with the mouse and expect exact desktop pixels back (teach mode).
import type { Page } from '@playwright/test';
import { shownDisplayBox } from './displayBox.js';
import type { Rect } from './xdesktop.js';

export interface Mapping {
  box: Rect;
  /** CSS pixels per desktop pixel. */
  scale: number;
}

/** The page's mapping as the display element shows it: its box and the desktop's size. */
export async function displayMapping(page: Page, desktopWidth: number): Promise<Mapping> {
  const box = await shownDisplayBox(page);
  return { box, scale: box.width / desktopWidth };
}

/**
 * A whole page coordinate inside desktop column/row `d` (or the next one when no whole
 * coordinate lies well inside it), and the desktop pixel the page's mapping puts under it.
 * Kept a tenth of a pixel away from pixel edges, so rounding anywhere cannot move it.
 */
function onAxis(start: number, scale: number, d: number): { page: number; pixel: number } {
  for (let page = Math.floor(start + d * scale); ; page++) {
    const at = (page - start) / scale;
    const frac = at - Math.floor(at);
    if (at >= d && frac > 0.1 && frac < 0.9) return { page, pixel: Math.floor(at) };
  }
}

/** The page point for desktop pixel (x, y), and the pixel it really maps to. */
export function spot(m: Mapping, x: number, y: number) {
  const h = onAxis(m.box.x, m.scale, x);
  const v = onAxis(m.box.y, m.scale, y);
  return { page: { x: h.page, y: v.page }, pixel: { x: h.pixel, y: v.pixel } };
}

export type Spot = ReturnType<typeof spot>;

/** A mouse drag from one spot to another, in steps (the page sees the moves). */
export async function dragBetween(page: Page, from: Spot, to: Spot): Promise<void> {
  await page.mouse.move(from.page.x, from.page.y);
  await page.mouse.down();
  await page.mouse.move(to.page.x, to.page.y, { steps: 8 });
  await page.mouse.up();
}
