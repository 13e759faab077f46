// scaleDown against a plain reference (each target pixel the rounded mean of the block of source
// rows and columns blockStart gives it), on random pictures and sizes; part of a thumbnail
// scaled from just the source under it (thumbnailRegion) equals that part of the whole one; and
// the cases that matter most: a halving with a framebuffer's zero alpha, and no scaling at all;
// both ways of summing (packed words for small blocks, per channel for large) on all-white and
// unaligned pixels.
import { describe, expect, it } from 'vitest';
import { blockStart, scaleDown, thumbnailRegion } from './scaleDown.js';

/** The straightforward version: for each target pixel, loop over the block it covers. */
function reference(rgba: Uint8Array, w: number, h: number, tw: number, th: number): Buffer {
  const out = Buffer.alloc(tw * th * 3);
  for (let y = 0; y < th; y++) {
    for (let x = 0; x < tw; x++) {
      for (let c = 0; c < 3; c++) {
        let sum = 0;
        let n = 0;
        for (
          let sy = Math.floor((y * h) / th);
          sy < (y + 1 === th ? h : Math.floor(((y + 1) * h) / th));
          sy++
        ) {
          for (
            let sx = Math.floor((x * w) / tw);
            sx < (x + 1 === tw ? w : Math.floor(((x + 1) * w) / tw));
            sx++
          ) {
            sum += rgba[(sy * w + sx) * 4 + c]!;
            n++;
          }
        }
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

/** Rows and columns `rect` of a tight RGBA picture `w` wide. */
function crop(
  rgba: Uint8Array,
  w: number,
  rect: { x: number; y: number; width: number; height: number },
): Uint8Array {
  const out = new Uint8Array(rect.width * rect.height * 4);
  for (let row = 0; row < rect.height; row++) {
    const at = ((rect.y + row) * w + rect.x) * 4;
    out.set(rgba.subarray(at, at + rect.width * 4), row * rect.width * 4);
  }
  return out;
}

const sizes = (seed: number) => {
  const w = 1 + ((seed * 7) % 41);
  const h = 1 + ((seed * 13) % 29);
  return { w, h, tw: 1 + ((seed * 5) % w), th: 1 + ((seed * 3) % h) };
};

describe('scaleDown', () => {
  it('equals the block-average reference for random pictures and sizes', () => {
    for (let seed = 1; seed <= 60; seed++) {
      const { w, h, tw, th } = sizes(seed);
      const rgba = randomPicture(w, h, seed);
      expect(
        scaleDown(rgba, { width: w, height: h }, { width: tw, height: th }),
        `${w}x${h} -> ${tw}x${th}`,
      ).toEqual(reference(rgba, w, h, tw, th));
    }
  });

  it('scales part of a thumbnail from the source under it alone, as in the whole thumbnail', () => {
    for (let seed = 1; seed <= 60; seed++) {
      const { w, h, tw, th } = sizes(seed);
      const rgba = randomPicture(w, h, seed);
      const from = { width: w, height: h };
      const to = { width: tw, height: th };
      const whole = scaleDown(rgba, from, to);
      const x = (seed * 11) % w;
      const y = (seed * 17) % h;
      const changed = {
        x,
        y,
        width: 1 + ((seed * 3) % (w - x)),
        height: 1 + ((seed * 5) % (h - y)),
      };
      const { target, source } = thumbnailRegion(changed, from, to);
      // The part covers the change: every changed source pixel is under it.
      expect(source.x).toBeLessThanOrEqual(changed.x);
      expect(source.y).toBeLessThanOrEqual(changed.y);
      expect(source.x + source.width).toBeGreaterThanOrEqual(changed.x + changed.width);
      expect(source.y + source.height).toBeGreaterThanOrEqual(changed.y + changed.height);
      expect(source.x).toBe(blockStart(target.x, w, tw));
      const part = scaleDown(crop(rgba, w, source), from, to, target);
      for (let row = 0; row < target.height; row++) {
        const at = ((target.y + row) * tw + target.x) * 3;
        expect(part.subarray(row * target.width * 3, (row + 1) * target.width * 3)).toEqual(
          whole.subarray(at, at + target.width * 3),
        );
      }
    }
  });

  it('sums in packed words for small blocks and per channel for large ones, alike', () => {
    // Small blocks (a screen into a tile) take the packed path, whose red and blue share a word:
    // white everywhere is the largest sum each half must hold. Blocks of 17×16 or more (over
    // 65535 / 255 pixels) take the per-channel path. Both must equal the reference, also for
    // pixels that do not start on a 4-byte boundary of their buffer.
    const cases = [
      { w: 64, h: 40, tw: 48, th: 30 },
      { w: 160, h: 160, tw: 10, th: 10 },
      { w: 340, h: 20, tw: 20, th: 1 },
    ];
    for (const [i, { w, h, tw, th }] of cases.entries()) {
      for (const picture of [randomPicture(w, h, 40 + i), new Uint8Array(w * h * 4).fill(255)]) {
        const unaligned = new Uint8Array(picture.length + 1).subarray(1);
        unaligned.set(picture);
        const expected = reference(picture, w, h, tw, th);
        const from = { width: w, height: h };
        const to = { width: tw, height: th };
        expect(scaleDown(picture, from, to), `${w}x${h} -> ${tw}x${th}`).toEqual(expected);
        expect(scaleDown(unaligned, from, to), `${w}x${h} unaligned`).toEqual(expected);
      }
    }
  });

  it('halves by averaging each 2×2 block, ignoring alpha', () => {
    // Alpha 0 everywhere, as a framebuffer often has: it must not darken anything.
    const rgba = new Uint8Array([10, 20, 30, 0, 30, 40, 50, 0, 50, 60, 70, 0, 70, 80, 90, 0]);
    expect([...scaleDown(rgba, { width: 2, height: 2 }, { width: 1, height: 1 })]).toEqual([
      40, 50, 60,
    ]);
  });

  it('keeps every pixel when the size does not change, and refuses to enlarge', () => {
    const rgba = randomPicture(5, 4, 9);
    const same = scaleDown(rgba, { width: 5, height: 4 }, { width: 5, height: 4 });
    for (let i = 0; i < 20; i++) {
      expect([...same.subarray(i * 3, i * 3 + 3)]).toEqual([...rgba.subarray(i * 4, i * 4 + 3)]);
    }
    expect(() => scaleDown(rgba, { width: 5, height: 4 }, { width: 6, height: 4 })).toThrow(
      RangeError,
    );
  });
});
