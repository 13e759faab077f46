// Pixel statistics of a PNG (a Playwright screenshot), decoded by Chromium itself in a blank
// page so the e2e tests need no image library. Regions are in the PNG's own pixels.
/// <reference lib="dom" />
// (The callback below runs in Chromium; the DOM lib types it wherever this file is checked.)
import type { Page } from '@playwright/test';

export interface RegionStats {
  pixels: number;
  /** Fraction of pixels with every channel ≥ 230 (xterm's background). */
  white: number;
  /** Fraction of pixels with every channel ≤ 60 (text, the bare X root). */
  dark: number;
  /** Distinct colours, counted on 4-bit-per-channel buckets. */
  colours: number;
  /** Standard deviation of luma (0–255): 0 for a uniform area. */
  lumaStdDev: number;
}

export interface PixelRegion {
  x: number;
  y: number;
  width: number;
  height: number;
}

export async function regionStats(
  blank: Page,
  png: Buffer,
  regions: PixelRegion[],
): Promise<RegionStats[]> {
  return blank.evaluate(
    async ({ base64, regions }) => {
      const bytes = Uint8Array.from(atob(base64), (c) => c.charCodeAt(0));
      const bitmap = await createImageBitmap(new Blob([bytes], { type: 'image/png' }));
      const canvas = new OffscreenCanvas(bitmap.width, bitmap.height);
      const ctx = canvas.getContext('2d');
      if (!ctx) throw new Error('no 2d context');
      ctx.drawImage(bitmap, 0, 0);
      return regions.map((r) => {
        const x = Math.max(0, Math.round(r.x));
        const y = Math.max(0, Math.round(r.y));
        const w = Math.min(bitmap.width - x, Math.round(r.width));
        const h = Math.min(bitmap.height - y, Math.round(r.height));
        if (w <= 0 || h <= 0) return { pixels: 0, white: 0, dark: 0, colours: 0, lumaStdDev: 0 };
        const data = ctx.getImageData(x, y, w, h).data;
        let white = 0;
        let dark = 0;
        let sum = 0;
        let sumSq = 0;
        const buckets = new Set<number>();
        for (let i = 0; i < data.length; i += 4) {
          const red = data[i] ?? 0;
          const green = data[i + 1] ?? 0;
          const blue = data[i + 2] ?? 0;
          if (red >= 230 && green >= 230 && blue >= 230) white++;
          if (red <= 60 && green <= 60 && blue <= 60) dark++;
          const luma = 0.299 * red + 0.587 * green + 0.114 * blue;
          sum += luma;
          sumSq += luma * luma;
          buckets.add(((red >> 4) << 8) | ((green >> 4) << 4) | (blue >> 4));
        }
        const n = w * h;
        const mean = sum / n;
        return {
          pixels: n,
          white: white / n,
          dark: dark / n,
          colours: buckets.size,
          lumaStdDev: Math.sqrt(Math.max(0, sumSq / n - mean * mean)),
        };
      });
    },
    { base64: png.toString('base64'), regions },
  );
}

/** The part of an RGBA image (e.g. `xwd -root` through captureRoot) a comparison needs. */
export interface RgbaLike {
  width: number;
  height: number;
  rgba: Buffer;
}

/**
 * Compares a PNG (a Playwright screenshot) with an RGBA image of the same size, RGB only, in
 * Chromium: how many pixels differ, and the first one.
 */
export async function comparePngWithRgba(
  blank: Page,
  png: Buffer,
  expected: RgbaLike,
): Promise<{ mismatches: number; size: string; first?: string }> {
  return blank.evaluate(
    async ({ base64, rgbaBase64, width, height }) => {
      const bytes = Uint8Array.from(atob(base64), (c) => c.charCodeAt(0));
      const bitmap = await createImageBitmap(new Blob([bytes], { type: 'image/png' }));
      const size = `${bitmap.width}x${bitmap.height} vs ${width}x${height}`;
      if (bitmap.width !== width || bitmap.height !== height)
        return { mismatches: width * height, size };
      const canvas = new OffscreenCanvas(width, height);
      const ctx = canvas.getContext('2d');
      if (!ctx) throw new Error('no 2d context');
      ctx.drawImage(bitmap, 0, 0);
      const actual = ctx.getImageData(0, 0, width, height).data;
      const want = Uint8Array.from(atob(rgbaBase64), (c) => c.charCodeAt(0));
      let mismatches = 0;
      let first: string | undefined;
      for (let i = 0; i < want.length; i += 4) {
        if (
          actual[i] !== want[i] ||
          actual[i + 1] !== want[i + 1] ||
          actual[i + 2] !== want[i + 2]
        ) {
          if (first === undefined) {
            const p = i / 4;
            first = `(${p % width}, ${Math.floor(p / width)}): page ${String(actual[i])},${String(actual[i + 1])},${String(actual[i + 2])} desktop ${String(want[i])},${String(want[i + 1])},${String(want[i + 2])}`;
          }
          mismatches++;
        }
      }
      return first === undefined ? { mismatches, size } : { mismatches, size, first };
    },
    {
      base64: png.toString('base64'),
      rgbaBase64: expected.rgba.toString('base64'),
      width: expected.width,
      height: expected.height,
    },
  );
}
