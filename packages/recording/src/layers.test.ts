// copyRect, the recorder's scroll: the row-by-row path for opaque copies gives exactly what a copy
// through a temporary gives (as a canvas blit does) — within one surface in every direction,
// overlapping or not, between surfaces, clipped at any edge, SRC and OVER, opaque or not; and the
// areas it remembers as opaque (to skip scanning them again) are forgotten by every write that
// may leave a pixel translucent.
import { describe, expect, it } from 'vitest';
import {
  CompositeMask,
  copyRect,
  crop,
  drawImage,
  fillRects,
  type Rect,
  type Surface,
} from './layers.js';

function surface(width: number, height: number, seed: number, translucent: boolean): Surface {
  const rgba = Buffer.alloc(width * height * 4);
  let state = seed;
  for (let i = 0; i < rgba.length; i++) {
    state = (Math.imul(state, 1103515245) + 12345) >>> 0;
    rgba[i] = i % 4 === 3 && !(translucent && state % 7 === 0) ? 255 : state >>> 24;
  }
  return { width, height, rgba };
}

/** The reference: through a temporary, as copyRect always did. */
function reference(src: Surface, from: Rect, dst: Surface, dx: number, dy: number, mask: number) {
  const { rect, rgba } = crop(src, from);
  if (rgba.length === 0) return;
  drawImage(
    dst,
    rgba,
    rect.width,
    rect.height,
    dx + (rect.x - from.x),
    dy + (rect.y - from.y),
    mask,
  );
}

const clone = (s: Surface): Surface => ({ ...s, rgba: Buffer.from(s.rgba) });

describe('copyRect', () => {
  it('equals a copy through a temporary, for 2,000 random copies', () => {
    let state = 42;
    const rnd = (n: number) => {
      state = (Math.imul(state, 1103515245) + 12345) >>> 0;
      return (state >>> 8) % n;
    };
    for (let i = 0; i < 2_000; i++) {
      const translucent = rnd(4) === 0;
      const a = surface(23, 17, i + 1, translucent);
      const b = surface(19, 21, i + 7, false);
      const same = rnd(2) === 0;
      const mask = rnd(2) === 0 ? CompositeMask.SRC : CompositeMask.OVER;
      const from = { x: rnd(30) - 5, y: rnd(26) - 5, width: rnd(25), height: rnd(22) };
      const dx = rnd(30) - 6;
      const dy = rnd(26) - 6;
      const src = a;
      const dst = same ? a : b;
      const expected = { src: clone(src), dst: same ? undefined : clone(dst) };
      reference(expected.src, from, expected.dst ?? expected.src, dx, dy, mask);
      copyRect(src, from, dst, dx, dy, mask);
      const what = JSON.stringify({ i, same, mask, from, dx, dy, translucent });
      expect(src.rgba.equals(expected.src.rgba), what).toBe(true);
      if (!same) expect(dst.rgba.equals(expected.dst!.rgba), what).toBe(true);
    }
  });

  it('scrolls a surface up and down by a few rows, as a terminal does', () => {
    for (const shift of [3, -3, 1, -1]) {
      const s = surface(40, 30, 9, false);
      const expected = clone(s);
      reference(
        expected,
        { x: 0, y: Math.max(0, shift), width: 40, height: 30 - Math.abs(shift) },
        expected,
        0,
        Math.max(0, -shift),
        CompositeMask.OVER,
      );
      copyRect(
        s,
        { x: 0, y: Math.max(0, shift), width: 40, height: 30 - Math.abs(shift) },
        s,
        0,
        Math.max(0, -shift),
        CompositeMask.OVER,
      );
      expect(s.rgba.equals(expected.rgba), String(shift)).toBe(true);
    }
  });
});

describe('the opaque areas copyRect remembers', () => {
  it.each([7, 8, 9, 10])(
    'change nothing: 4,000 random draws, fills and copies equal the same on surfaces never seen (seed %i)',
    (seed) => {
      let state = seed;
      const rnd = (n: number) => {
        state = (Math.imul(state, 1103515245) + 12345) >>> 0;
        return (state >>> 8) % n;
      };
      // Mostly opaque surfaces (so areas are remembered), with translucent writes now and then.
      const tracked = [surface(24, 18, 1, false), surface(20, 22, 2, false)];
      const plain = tracked.map(clone);
      // The same pixels in a new object each time: nothing remembered, every copy scans.
      const fresh = (i: number): Surface => ({ ...plain[i]! });
      const rect = (): Rect => ({
        x: rnd(30) - 5,
        y: rnd(26) - 5,
        width: rnd(26),
        height: rnd(24),
      });
      const reads: Rect[] = [
        { x: 0, y: 2, width: 20, height: 16 },
        { x: 3, y: 3, width: 8, height: 8 },
        { x: 0, y: 0, width: 30, height: 30 },
      ];
      const masks = [
        CompositeMask.SRC,
        CompositeMask.OVER,
        CompositeMask.ROUT,
        CompositeMask.RATOP,
      ];
      for (let i = 0; i < 4_000; i++) {
        const op = rnd(10);
        const a = rnd(2);
        const b = rnd(2);
        let what: string;
        if (op < 5) {
          // Mostly the same few areas, as a scroll reads, so remembered areas are read again.
          const from = rnd(4) === 0 ? rect() : reads[rnd(reads.length)]!;
          const [dx, dy] = [rnd(30) - 6, rnd(26) - 6];
          const mask = rnd(3) === 0 ? CompositeMask.SRC : CompositeMask.OVER;
          what = JSON.stringify({ i, copy: { a, b, from, dx, dy, mask } });
          copyRect(tracked[a]!, from, tracked[b]!, dx, dy, mask);
          const source = fresh(a);
          copyRect(source, from, a === b ? source : fresh(b), dx, dy, mask);
        } else if (op < 8) {
          const [w, h] = [1 + rnd(12), 1 + rnd(12)];
          const translucent = rnd(4) === 0;
          const data = surface(w, h, i, translucent).rgba;
          const [x, y, mask] = [rnd(30) - 6, rnd(26) - 6, masks[rnd(2)]!];
          what = JSON.stringify({ i, draw: { b, w, h, x, y, mask, translucent } });
          drawImage(tracked[b]!, data, w, h, x, y, mask, !translucent && rnd(2) === 0);
          drawImage(fresh(b), data, w, h, x, y, mask);
        } else {
          const alpha = [255, 255, 255, 255, 255, 128, 0][rnd(7)]!;
          const colour = [rnd(256), rnd(256), rnd(256), alpha] as const;
          const [r, mask] = [rect(), masks[rnd(4)]!];
          what = JSON.stringify({ i, fill: { b, r, colour, mask } });
          fillRects(tracked[b]!, [r], colour, mask);
          fillRects(fresh(b), [r], colour, mask);
        }
        for (const k of [0, 1]) expect(tracked[k]!.rgba.equals(plain[k]!.rgba), what).toBe(true);
      }
    },
  );
});
