// copyRect, the recorder's scroll: the row-by-row path for opaque copies gives exactly what a copy
// through a temporary gives (as a canvas blit does) — within one surface in every direction,
// overlapping or not, between surfaces, clipped at any edge, SRC and OVER, opaque or not.
import { describe, expect, it } from 'vitest';
import { CompositeMask, copyRect, crop, drawImage, type Rect, type Surface } from './layers.js';

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
