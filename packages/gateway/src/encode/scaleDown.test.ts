// scaleDown against a plain reference (each target pixel the rounded mean of the block of source
// columns and rows assigned to it), on random pictures and sizes, and the cases that matter
// most: an exact halving with a framebuffer's zero alpha, and no scaling at all.
import { describe, expect, it } from 'vitest';
import { scaleDown } from './scaleDown.js';

/** The straightforward version: for each target pixel, loop over the block it covers. */
function reference(rgba: Uint8Array, w: number, h: number, tw: number, th: number): Buffer {
  const out = Buffer.alloc(tw * th * 3);
  const cols = (x: number) =>
    [...Array(w).keys()].filter((s) => Math.min(tw - 1, Math.floor((s * tw) / w)) === x);
  const rowStart = (y: number) => Math.floor((y * h) / th);
  for (let y = 0; y < th; y++) {
    const rows = [...Array(h).keys()].filter(
      (s) => s >= rowStart(y) && (y === th - 1 || s < rowStart(y + 1)),
    );
    for (let x = 0; x < tw; x++) {
      const xs = cols(x);
      for (let c = 0; c < 3; c++) {
        let sum = 0;
        for (const sy of rows) for (const sx of xs) sum += rgba[(sy * w + sx) * 4 + c]!;
        const n = rows.length * xs.length;
        out[(y * tw + x) * 3 + c] = Math.floor((sum + (n >>> 1)) / n);
      }
    }
  }
  return out;
}

function randomPicture(w: number, h: number, seed: number): Uint8Array {
  const rgba = new Uint8Array(w * h * 4);
  let s = seed;
  for (let i = 0; i < rgba.length; i++) {
    s = (s * 1103515245 + 12345) >>> 0;
    rgba[i] = s >>> 24;
  }
  return rgba;
}

describe('scaleDown', () => {
  it('equals the block-average reference for random pictures and sizes', () => {
    for (let seed = 1; seed <= 60; seed++) {
      const w = 1 + ((seed * 7) % 41);
      const h = 1 + ((seed * 13) % 29);
      const tw = 1 + ((seed * 5) % w);
      const th = 1 + ((seed * 3) % h);
      const rgba = randomPicture(w, h, seed);
      expect(scaleDown(rgba, w, h, tw, th), `${w}x${h} -> ${tw}x${th}`).toEqual(
        reference(rgba, w, h, tw, th),
      );
    }
  });

  it('halves by averaging each 2×2 block, ignoring alpha', () => {
    // Alpha 0 everywhere, as a framebuffer often has: it must not darken anything.
    const rgba = new Uint8Array([10, 20, 30, 0, 30, 40, 50, 0, 50, 60, 70, 0, 70, 80, 90, 0]);
    expect([...scaleDown(rgba, 2, 2, 1, 1)]).toEqual([40, 50, 60]);
  });

  it('keeps every pixel when the size does not change, and refuses to enlarge', () => {
    const rgba = randomPicture(5, 4, 9);
    const same = scaleDown(rgba, 5, 4, 5, 4);
    for (let i = 0; i < 20; i++) {
      expect([...same.subarray(i * 3, i * 3 + 3)]).toEqual([...rgba.subarray(i * 4, i * 4 + 3)]);
    }
    expect(() => scaleDown(rgba, 5, 4, 6, 4)).toThrow(RangeError);
  });
});
