// The last encoded screenshot of each followed display, so a take_screenshot of a picture that has
// not changed returns the same bytes without copying or encoding again. A stored image is reused
// only when everything that made its pixels is the same: the picture's version (FrameWatch's
// pictureVersion moves with every change to the display, see displayChanges.ts), the region, the
// image size and scale, the format and quality, and the privacy masks painted into it — a mask
// drawn (or moved, or removed) since makes a new image. Captures with overlays drawn in are never
// stored: the overlays are not part of the version. The metadata around the bytes (viewer zoom,
// scroll, frame age) is made fresh for every call by capture.ts.
import type { PrivacyMask, Rect } from '@overlay-companion/protocol';
import type { FrameWatch } from './frameWatch.js';

export interface ShotKey {
  version: number;
  region: Rect;
  width: number;
  height: number;
  scale: number;
  format: 'png' | 'jpeg';
  /** JPEG quality 0..1; undefined for PNG. */
  quality: number | undefined;
  masks: readonly PrivacyMask[];
}

interface Stored {
  key: string;
  image: Uint8Array;
}

const stored = new WeakMap<FrameWatch, Stored>();

/** How many encoded images were stored and how many reused (read by tests through the page). */
export const shotCounts = { stored: 0, reused: 0 };

function keyText(key: ShotKey): string {
  // Masks as geometry only: a label does not change a pixel.
  const masks = key.masks.map((m) => [m.x, m.y, m.width, m.height]);
  return JSON.stringify([
    key.version,
    key.region,
    key.width,
    key.height,
    key.scale,
    key.format,
    key.quality,
    masks,
  ]);
}

/** The stored image for `key`, if the picture and everything else are unchanged. */
export function reusableShot(frames: FrameWatch, key: ShotKey): Uint8Array | undefined {
  const last = stored.get(frames);
  if (last === undefined || last.key !== keyText(key)) return undefined;
  shotCounts.reused += 1;
  return last.image;
}

/** Keeps `image`, encoded from the picture `key` describes, in place of the last one. */
export function storeShot(frames: FrameWatch, key: ShotKey, image: Uint8Array): void {
  shotCounts.stored += 1;
  stored.set(frames, { key: keyText(key), image });
}
