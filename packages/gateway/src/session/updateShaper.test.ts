// The shaper's moves, replayed the way a browser runs them (copies in order on what it shows,
// then the rectangles drawn from the framebuffer), rebuild the framebuffer exactly — also right
// after updates the server copied in, which leave the shadow stale where they touched it.
import { describe, expect, it } from 'vitest';
import type { CopyOp } from '../encode/instructions.js';
import { freeBand, UpdateShaper, type ShapedOp } from './updateShaper.js';

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

/**
 * Runs `ops` the way a browser's pending state (frameState.ts) turns them into a frame: a
 * copy also moves what is still to be drawn in its source; then every rectangle is drawn.
 */
function replayInOrder(browser: Buffer, ops: readonly ShapedOp[], fb: Buffer): void {
  const pending: { x: number; y: number; width: number; height: number }[] = [];
  for (const op of ops) {
    if (op.kind === 'rect') {
      pending.push(op.rect);
      continue;
    }
    runCopy(browser, op.op);
    const dy = op.op.y - op.op.srcY;
    for (const r of [...pending]) {
      const top = Math.max(r.y, op.op.srcY);
      const bottom = Math.min(r.y + r.height, op.op.srcY + op.op.height);
      if (bottom > top) pending.push({ x: r.x, y: top + dy, width: r.width, height: bottom - top });
    }
  }
  replay(
    browser,
    pending.map((rect) => ({ kind: 'rect', rect })),
    fb,
  );
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

  it('finds the rest of a scroll the server copied only in part, and stays exact', () => {
    // A window over the lower rows: the server copies the rows above it and draws the rest.
    const fb = picture(2);
    const browser = Buffer.from(fb);
    const shaper = new UpdateShaper(WIDTH, HEIGHT);
    shaper.resize(WIDTH, HEIGHT, fb);
    for (let round = 0; round < 3; round++) {
      scroll(fb, 6, 100 * round);
      const copy = { srcX: 0, srcY: 6, x: 0, y: 0, width: WIDTH, height: 40 };
      shaper.copy(copy);
      // Drawn as the server does it: a few bands, the moved rows among them.
      shaper.rect({ x: 0, y: 40, width: WIDTH, height: 30 });
      shaper.rect({ x: 0, y: 70, width: WIDTH, height: HEIGHT - 70 });
      const ops = shaper.finish(fb);
      expect(ops[0]).toEqual({ kind: 'copy', op: copy });
      const found = ops.filter((op) => op.kind === 'copy').slice(1);
      expect(found).toHaveLength(1);
      // Only the new rows are drawn.
      const drawn = ops.reduce((sum, op) => sum + (op.kind === 'rect' ? op.rect.height : 0), 0);
      expect(drawn).toBe(6);
      replay(browser, ops, fb);
      expect(browser.equals(fb)).toBe(true);
    }
  });

  it('keeps a rectangle drawn before a CopyRect that reads it in its place', () => {
    const fb = picture(3);
    const browser = Buffer.from(fb);
    const shaper = new UpdateShaper(WIDTH, HEIGHT);
    shaper.resize(WIDTH, HEIGHT, fb);
    // New rows drawn at the bottom, then moved up by a CopyRect of the same update.
    for (let y = 60; y < HEIGHT; y++) row(fb, y, 900 + y);
    shaper.rect({ x: 0, y: 60, width: WIDTH, height: HEIGHT - 60 });
    const copy = { srcX: 0, srcY: 60, x: 0, y: 0, width: WIDTH, height: 36 };
    runCopy(fb, copy);
    shaper.copy(copy);
    const ops = shaper.finish(fb);
    expect(ops.map((op) => op.kind)).toEqual(['rect', 'copy']);
    // Replayed in order, as a browser's pending state takes them (the copy moves what is
    // still to be drawn): exact.
    replayInOrder(browser, ops, fb);
    expect(browser.equals(fb)).toBe(true);
  });

  it('stays exact over random scrolls the server copies in part', () => {
    let seed = 7;
    const random = (n: number) => {
      seed = (seed * 1103515245 + 12345) >>> 0;
      return seed % n;
    };
    const fb = picture(4);
    const browser = Buffer.from(fb);
    const shaper = new UpdateShaper(WIDTH, HEIGHT);
    shaper.resize(WIDTH, HEIGHT, fb);
    for (let round = 0; round < 200; round++) {
      const lines = 1 + random(12);
      scroll(fb, lines, 1000 * round);
      const copied = random(HEIGHT - lines);
      if (copied > 0) {
        shaper.copy({ srcX: 0, srcY: lines, x: 0, y: 0, width: WIDTH, height: copied });
      }
      // The rest drawn in random bands, sometimes a band left out of a copy-less update.
      for (let y = copied; y < HEIGHT;) {
        const height = Math.min(HEIGHT - y, 1 + random(40));
        shaper.rect({ x: 0, y, width: WIDTH, height });
        y += height;
      }
      const ops = shaper.finish(fb);
      replay(browser, ops, fb);
      expect(browser.equals(fb)).toBe(true);
    }
  });

  it('plans in the tallest band of rows that nothing blocks', () => {
    const region = { x: 10, y: 100, width: 200, height: 100 };
    expect(freeBand(region, [])).toEqual(region);
    // Blockers beside the region do not count; those across it cut its rows.
    const blockers = [
      { x: 0, y: 90, width: 50, height: 20 },
      { x: 300, y: 150, width: 10, height: 10 },
      { x: 100, y: 160, width: 5, height: 5 },
    ];
    expect(freeBand(region, blockers)).toEqual({ x: 10, y: 110, width: 200, height: 50 });
    expect(freeBand(region, [{ x: 0, y: 0, width: 400, height: 400 }])).toBeUndefined();
  });

  it('finds a scroll drawn around a window standing over it, and stays exact', () => {
    // A window over columns 64–95 of rows 50–85 (it does not scroll, and no row of it looks
    // like another): the server copies the rows above it and draws everything from row 38
    // down, beside the window, in bands.
    const window = { x: 64, y: 50, width: 32, height: 36 };
    const paintWindow = (fb: Buffer) => {
      for (let y = window.y; y < window.y + window.height; y++)
        fb.fill(0x40 + y, (y * WIDTH + window.x) * 4, (y * WIDTH + window.x + window.width) * 4);
    };
    const fb = picture(5);
    paintWindow(fb);
    const browser = Buffer.from(fb);
    const shaper = new UpdateShaper(WIDTH, HEIGHT);
    shaper.resize(WIDTH, HEIGHT, fb);
    for (let round = 0; round < 4; round++) {
      scroll(fb, 6, 100 * round);
      paintWindow(fb);
      const copy = { srcX: 0, srcY: 6, x: 0, y: 0, width: WIDTH, height: 38 };
      shaper.copy(copy);
      const drawn = [
        { x: 0, y: 38, width: WIDTH, height: 12 },
        { x: 0, y: 50, width: 64, height: 36 },
        { x: 96, y: 50, width: 64, height: 36 },
        { x: 0, y: 86, width: WIDTH, height: 10 },
      ];
      for (const rect of drawn) shaper.rect(rect);
      const ops = shaper.finish(fb);
      // Beside the window, the drawn rows are mostly moves.
      expect(ops.filter((op) => op.kind === 'copy').length).toBeGreaterThan(1);
      const pixels = ops.reduce(
        (sum, op) => sum + (op.kind === 'rect' ? op.rect.width * op.rect.height : 0),
        0,
      );
      expect(pixels).toBeLessThan(drawn.reduce((sum, r) => sum + r.width * r.height, 0) / 2);
      replay(browser, ops, fb);
      expect(browser.equals(fb)).toBe(true);
    }
  });
});
