// The shaper's moves, replayed the way a browser runs them (copies in order on what it shows,
// then the rectangles drawn from the framebuffer), rebuild the framebuffer exactly — also right
// after updates the server copied in, which leave the shadow stale where they touched it.
import { describe, expect, it } from 'vitest';
import type { CopyOp } from '../encode/instructions.js';
import { UpdateShaper, type ShapedOp } from './updateShaper.js';

const WIDTH = 160;
const HEIGHT = 96;

/** A framebuffer whose every row is different (so any scroll is unambiguous). */
function picture(seed: number): Buffer {
  const fb = Buffer.alloc(WIDTH * HEIGHT * 4);
  for (let y = 0; y < HEIGHT; y++) row(fb, y, seed * 1000 + y);
  return fb;
}

function row(fb: Buffer, y: number, value: number): void {
  for (let x = 0; x < WIDTH; x++)
    fb.writeUInt32LE((value * 7919 + (x >> 3)) >>> 0, (y * WIDTH + x) * 4);
}

/** What CopyRect does to a framebuffer (rows copied from a snapshot: overlaps are safe). */
function runCopy(fb: Buffer, op: CopyOp): void {
  const before = Buffer.from(fb);
  for (let r = 0; r < op.height; r++) {
    const from = ((op.srcY + r) * WIDTH + op.srcX) * 4;
    before.copy(fb, ((op.y + r) * WIDTH + op.x) * 4, from, from + op.width * 4);
  }
}

/** Runs `ops` on what a browser shows, drawing rectangles from `fb`. */
function replay(browser: Buffer, ops: readonly ShapedOp[], fb: Buffer): void {
  for (const op of ops) if (op.kind === 'copy') runCopy(browser, op.op);
  for (const op of ops) {
    if (op.kind !== 'rect') continue;
    const { x, y, width, height } = op.rect;
    for (let r = y; r < y + height; r++)
      fb.copy(browser, (r * WIDTH + x) * 4, (r * WIDTH + x) * 4, (r * WIDTH + x + width) * 4);
  }
}

/** The text of a terminal scrolling up by `lines` rows, `fresh` rows at the bottom. */
function scroll(fb: Buffer, lines: number, fresh: number): void {
  fb.copy(fb, 0, lines * WIDTH * 4);
  for (let y = HEIGHT - lines; y < HEIGHT; y++) row(fb, y, fresh + y);
}

const full = { x: 0, y: 0, width: WIDTH, height: HEIGHT };

describe('UpdateShaper', () => {
  it('rebuilds the picture exactly, finding moves again once stale areas are caught up', () => {
    const fb = picture(1);
    const browser = Buffer.from(fb);
    const shaper = new UpdateShaper(WIDTH, HEIGHT);
    shaper.resize(WIDTH, HEIGHT, fb);

    // The server scrolls with a CopyRect and draws the new rows: passed on as it came.
    const copy = { srcX: 0, srcY: 8, x: 0, y: 0, width: WIDTH, height: HEIGHT - 8 };
    runCopy(fb, copy);
    for (let y = HEIGHT - 8; y < HEIGHT; y++) row(fb, y, 500 + y);
    shaper.copy(copy);
    shaper.rect({ x: 0, y: HEIGHT - 8, width: WIDTH, height: 8 });
    const first = shaper.finish(fb);
    expect(first.filter((op) => op.kind === 'copy')).toHaveLength(1);
    replay(browser, first, fb);
    expect(browser.equals(fb)).toBe(true);

    // A few rows drawn without CopyRect: the stale areas are caught up meanwhile.
    for (let y = HEIGHT - 4; y < HEIGHT; y++) row(fb, y, 550 + y);
    shaper.rect({ x: 0, y: HEIGHT - 4, width: WIDTH, height: 4 });
    replay(browser, shaper.finish(fb), fb);
    expect(browser.equals(fb)).toBe(true);

    // So a scroll without CopyRect is a move plus the new rows.
    scroll(fb, 12, 600);
    shaper.rect(full);
    const third = shaper.finish(fb);
    expect(third.filter((op) => op.kind === 'copy')).toHaveLength(1);
    replay(browser, third, fb);
    expect(browser.equals(fb)).toBe(true);

    // Right after a CopyRect, the shadow is stale where it went: no moves found there, exact.
    runCopy(fb, copy);
    shaper.copy(copy);
    replay(browser, shaper.finish(fb), fb);
    scroll(fb, 12, 700);
    shaper.rect(full);
    const fifth = shaper.finish(fb);
    expect(fifth.some((op) => op.kind === 'copy')).toBe(false);
    replay(browser, fifth, fb);
    expect(browser.equals(fb)).toBe(true);
  });
});
