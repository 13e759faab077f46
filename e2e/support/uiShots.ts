// Looking at the web app at a phone's, a laptop's and a 4K size: the sizes, a screenshot attached
// to the report (and written to OC_UI_SHOTS when set, for a person to look through), and the
// layout checks that measure what a person sees — no sideways scroll, the viewer's bar in its
// rows with nothing cut off or overlapping, boxes that do not intersect — and whether the
// recording player shows a picture at all.
/// <reference lib="dom" />
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { expect, test, type Page } from '@playwright/test';
import sharp from 'sharp';

export const UI_SIZES = [
  { width: 390, height: 844 },
  { width: 1280, height: 800 },
  { width: 3840, height: 2160 },
] as const;

export const sizeTag = (size: { width: number; height: number }): string =>
  `${size.width}x${size.height}`;

export async function shot(page: Page, name: string): Promise<void> {
  const picture = await page.screenshot();
  await test.info().attach(name, { body: picture, contentType: 'image/png' });
  const dir = process.env['OC_UI_SHOTS'];
  if (dir !== undefined && dir !== '') {
    await mkdir(dir, { recursive: true });
    await writeFile(join(dir, `${name}.png`), picture);
  }
}

/**
 * Of the player's picture of the e2e desktops, at least this share is not black: their xterm
 * alone is far more (about 40 %); a picture not drawn at all is 0.
 */
export const MIN_PICTURE_LIT = 0.02;

/**
 * The share (0–1) of the player's recorded screen, as the page draws it, that is not black: the
 * screen's own box (the recording's size as scaled), not the stage around it, whose border and
 * background would count as a picture when the recording draws nothing.
 */
export async function playerPictureLit(page: Page): Promise<number> {
  const screen = page.getByTestId('player-screen');
  const box = await screen.boundingBox();
  if (box === null || box.width < 1 || box.height < 1) return 0;
  const { data, info } = await sharp(await screen.screenshot())
    .removeAlpha()
    .raw()
    .toBuffer({ resolveWithObject: true });
  let lit = 0;
  for (let i = 0; i < data.length; i += info.channels)
    if ((data[i] ?? 0) + (data[i + 1] ?? 0) + (data[i + 2] ?? 0) > 60) lit += 1;
  return lit / (info.width * info.height);
}

/** The page does not scroll sideways: nothing sticks out past the window's right edge. */
export async function expectNoSidewaysScroll(page: Page, what: string): Promise<void> {
  const over = await page.evaluate(
    () => document.documentElement.scrollWidth - document.documentElement.clientWidth,
  );
  expect(over, `${what} scrolls sideways by ${over} px`).toBeLessThanOrEqual(0);
}

export interface Box {
  name: string;
  x: number;
  y: number;
  width: number;
  height: number;
}

/** Pairs of boxes that cover a common area (touching edges do not count). */
export function intersecting(boxes: readonly Box[]): string[] {
  const found: string[] = [];
  for (let i = 0; i < boxes.length; i++)
    for (let j = i + 1; j < boxes.length; j++) {
      const a = boxes[i]!;
      const b = boxes[j]!;
      const w = Math.min(a.x + a.width, b.x + b.width) - Math.max(a.x, b.x);
      const h = Math.min(a.y + a.height, b.y + b.height) - Math.max(a.y, b.y);
      if (w > 0.5 && h > 0.5) found.push(`${a.name} × ${b.name}`);
    }
  return found;
}

export interface BarLayout {
  /** The bar's items as drawn (display: contents wrappers looked through, hidden ones left out). */
  items: Box[];
  /** How many rows they sit in (items whose vertical middles are within half a row are one row). */
  rows: number;
  /** Elements whose text is cut (an ellipsis or clipped: wider content than box). */
  cut: string[];
  /** The Menu button's computed font size, px. */
  fontPx: number;
  bar: { x: number; y: number; width: number; height: number };
}

/** Measures the viewer's bar as drawn now. */
export async function barLayout(page: Page): Promise<BarLayout> {
  return page.evaluate(() => {
    const bar = document.querySelector<HTMLElement>('header.status-bar');
    if (bar === null) throw new Error('no status bar');
    const describe = (el: Element): string =>
      (el.getAttribute('data-testid') ?? el.className.toString().split(' ')[0] ?? el.tagName) +
      `“${(el.textContent ?? '').trim().slice(0, 30)}”`;
    const shown = (el: Element): boolean => {
      const box = el.getBoundingClientRect();
      return box.width > 2 && box.height > 2 && getComputedStyle(el).visibility !== 'hidden';
    };
    const items: Element[] = [];
    const walk = (parent: Element) => {
      for (const child of Array.from(parent.children)) {
        if (getComputedStyle(child).display === 'contents') walk(child);
        else if (shown(child)) items.push(child);
      }
    };
    walk(bar);
    // Popups that open from an item (a panel under the bar) are not the bar's rows.
    const inRow = items.filter(
      (el) => el.getBoundingClientRect().top < bar.getBoundingClientRect().bottom,
    );
    const boxes = inRow.map((el) => {
      const r = el.getBoundingClientRect();
      return { name: describe(el), x: r.x, y: r.y, width: r.width, height: r.height };
    });
    const middles = boxes.map((b) => b.y + b.height / 2).sort((a, b) => a - b);
    let rows = 0;
    let last = -Infinity;
    for (const m of middles) {
      if (m - last > 12) rows++;
      last = m;
    }
    const cut: string[] = [];
    for (const el of Array.from(bar.querySelectorAll('*'))) {
      if (!shown(el) || !(el instanceof HTMLElement)) continue;
      if (el.tagName === 'SELECT' || el.tagName === 'OPTION') continue;
      const style = getComputedStyle(el);
      if (style.overflow === 'visible' && style.textOverflow !== 'ellipsis') continue;
      if (el.scrollWidth > el.clientWidth + 1) cut.push(describe(el));
    }
    const menu = bar.querySelector('[data-menu-button]');
    const b = bar.getBoundingClientRect();
    return {
      items: boxes,
      rows,
      cut,
      fontPx: menu === null ? 0 : parseFloat(getComputedStyle(menu).fontSize),
      bar: { x: b.x, y: b.y, width: b.width, height: b.height },
    };
  });
}
