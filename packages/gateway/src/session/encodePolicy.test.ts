import { describe, expect, it } from 'vitest';
import { area } from '../encode/rect.js';
import {
  encodeModeFor,
  imageBands,
  MAX_IMAGE_PIXELS,
  qualityFor,
  SMALL_IMAGE_PIXELS,
  type PolicyInput,
} from './encodePolicy.js';

const big = { x: 0, y: 0, width: 400, height: 300 };
const base: PolicyInput = {
  policy: 'auto',
  lossyMimetype: 'image/jpeg',
  losslessMimetype: 'image/webp',
  refresh: false,
  busy: true,
  quality: 70,
};

describe('encode policy', () => {
  it('lowers lossy quality as the browser takes longer to acknowledge frames', () => {
    expect(qualityFor(0)).toBe(85);
    expect(qualityFor(10_000)).toBe(35);
    let last = Infinity;
    for (let ms = 0; ms <= 400; ms += 10) {
      const q = qualityFor(ms);
      expect(q).toBeLessThanOrEqual(last);
      expect(q % 5).toBe(0);
      last = q;
    }
  });

  it('offers lossy only for large busy areas, never for refreshes or small images', () => {
    expect(encodeModeFor(big, base)).toEqual({
      kind: 'lossy',
      mimetype: 'image/jpeg',
      quality: 70,
      force: false,
      lossless: 'image/webp',
    });
    const exact = { kind: 'lossless', mimetype: 'image/webp' };
    expect(encodeModeFor(big, { ...base, busy: false })).toEqual(exact);
    expect(encodeModeFor(big, { ...base, refresh: true })).toEqual(exact);
    expect(encodeModeFor({ x: 0, y: 0, width: 128, height: 128 }, base)).toEqual(exact);
    expect(encodeModeFor(big, { ...base, policy: 'never' })).toEqual(exact);
    expect(encodeModeFor(big, { ...base, lossyMimetype: undefined })).toEqual(exact);
    // Forced: even small, still areas — but a refresh stays exact.
    const tiny = { x: 0, y: 0, width: 8, height: 8 };
    expect(encodeModeFor(tiny, { ...base, policy: 'always', busy: false })).toMatchObject({
      kind: 'lossy',
      force: true,
    });
    expect(encodeModeFor(big, { ...base, policy: 'always', refresh: true })).toEqual(exact);
    expect(area({ x: 0, y: 0, width: 128, height: 128 })).toBe(SMALL_IMAGE_PIXELS);
  });

  it('cuts large images into bands that cover them exactly', () => {
    const rect = { x: 5, y: 7, width: 3840, height: 1080 };
    const bands = imageBands(rect);
    expect(bands.length).toBeGreaterThan(1);
    let y = rect.y;
    for (const band of bands) {
      expect(band).toMatchObject({ x: rect.x, y, width: rect.width });
      expect(area(band)).toBeLessThanOrEqual(MAX_IMAGE_PIXELS);
      y += band.height;
    }
    expect(y).toBe(rect.y + rect.height);
    expect(imageBands(big)).toEqual([big]);
  });
});
