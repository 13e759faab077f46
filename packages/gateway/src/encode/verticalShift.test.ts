import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { area, type Rect } from './rect.js';
import type { CopyOp } from './instructions.js';
import { planVerticalShift } from './verticalShift.js';

const W = 160;
const H = 120;

/** A "terminal": each row its own pattern of a few colours on a background (like text). */
function terminal(seed: number): Buffer {
  const px = new Uint32Array(W * H).fill(0xffffffff);
  for (let y = 0; y < H; y++) {
    const line = (y + seed) * 2654435761;
    for (let x = 8; x < W - 8; x++) if (((line >>> (x % 29)) & 3) === 1) px[y * W + x] = 0xff203040;
  }
  return Buffer.from(px.buffer);
}

/** `before` with `rect`'s content moved up by `k` rows (down if negative), new rows let in. */
function scrolled(before: Buffer, rect: Rect, k: number, seed: number): Buffer {
  const after = Buffer.from(before);
  const fresh = terminal(seed);
  for (let y = rect.y; y < rect.y + rect.height; y++) {
    const kept = y + k >= rect.y && y + k < rect.y + rect.height;
    const src = ((kept ? y + k : y) * W + rect.x) * 4;
    (kept ? before : fresh).copy(after, (y * W + rect.x) * 4, src, src + rect.width * 4);
  }
  return after;
}

/** What a browser showing `before` ends with after the plan: its copies, then `after` redrawn. */
function replay(before: Buffer, after: Buffer, copies: CopyOp[], changed: Rect[]): Buffer {
  const screen = Buffer.from(before);
  for (const op of copies) {
    const block = Buffer.alloc(op.width * op.height * 4);
    for (let y = 0; y < op.height; y++)
      screen.copy(
        block,
        y * op.width * 4,
        ((op.srcY + y) * W + op.srcX) * 4,
        ((op.srcY + y) * W + op.srcX + op.width) * 4,
      );
    for (let y = 0; y < op.height; y++)
      block.copy(screen, ((op.y + y) * W + op.x) * 4, y * op.width * 4, (y + 1) * op.width * 4);
  }
  for (const r of changed)
    for (let y = r.y; y < r.y + r.height; y++)
      after.copy(screen, (y * W + r.x) * 4, (y * W + r.x) * 4, (y * W + r.x + r.width) * 4);
  return screen;
}

describe('planVerticalShift', () => {
  it('turns a terminal scroll into one copy and the new lines', () => {
    const before = terminal(1);
    const rect = { x: 0, y: 0, width: W, height: H };
    const after = scrolled(before, rect, 13, 500);
    const plan = planVerticalShift(before, after, W, rect);
    // The margins never change: the plan covers the text columns only.
    const text = { x: 8, width: W - 16 };
    expect(plan?.copies).toEqual([
      { srcX: 8, srcY: 13, x: 8, y: 0, width: text.width, height: H - 13 },
    ]);
    expect(plan?.changed).toEqual([{ ...text, y: H - 13, height: 13 }]);
    expect(replay(before, after, plan!.copies, plan!.changed).equals(after)).toBe(true);
  });

  it('finds a scroll inside a window and leaves unchanged rows alone', () => {
    const before = terminal(2);
    const window = { x: 20, y: 10, width: 100, height: 90 };
    const after = scrolled(before, window, -7, 900); // content moving down
    const plan = planVerticalShift(before, after, W, { x: 0, y: 0, width: W, height: H })!;
    expect(plan.copies.length).toBeGreaterThan(0);
    expect(plan.copies.every((c) => c.srcY - c.y === -7)).toBe(true);
    const drawn = plan.changed.reduce((sum, r) => sum + area(r), 0);
    expect(drawn).toBeLessThan(area(window) / 2);
    expect(replay(before, after, plan.copies, plan.changed).equals(after)).toBe(true);
  });

  it('leaves small rectangles alone', () => {
    const before = terminal(3);
    expect(planVerticalShift(before, before, W, { x: 0, y: 0, width: 30, height: 30 })).toBe(
      undefined,
    );
  });

  it('always yields a plan that rebuilds the new picture exactly (property)', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 60 }),
        fc.integer({ min: 0, max: 40 }),
        fc.integer({ min: 64, max: W }),
        fc.integer({ min: 32, max: H }),
        fc.integer({ min: -40, max: 40 }),
        fc.integer(),
        (x0, y0, w, h, k, seed) => {
          const rect = { x: Math.min(x0, W - w), y: Math.min(y0, H - h), width: w, height: h };
          const before = terminal(seed);
          const after = scrolled(before, rect, k, seed + 1);
          const plan = planVerticalShift(before, after, W, rect)!;
          expect(replay(before, after, plan.copies, plan.changed).equals(after)).toBe(true);
        },
      ),
      { numRuns: 300 },
    );
  });
});
