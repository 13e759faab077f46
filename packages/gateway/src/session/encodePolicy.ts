// How a browser's changed rectangles are encoded: lossless by default; lossy (JPEG/WebP, when the
// browser takes it) for large rectangles of busy screen areas whose content suits it, at a
// quality that drops as the browser falls behind. `always` forces lossy on every rectangle that
// is not a settling refresh (tests use it to prove refreshes restore exact pixels); `never`
// keeps everything lossless.
import type { EncodeMode, LosslessMimetype, LossyMimetype } from '../encode/imageTypes.js';
import { area, type Rect } from '../encode/rect.js';

export type LossyPolicy = 'auto' | 'always' | 'never';

/**
 * Images up to this size are small: always exact (lossy saves little there and JPEG's headers
 * outweigh it) and encoded on the spot rather than in a worker (encodeCache.ts).
 */
export const SMALL_IMAGE_PIXELS = 128 * 128;
/**
 * A frame with at least this many changed pixels is heavy (a scroll, a video, a window
 * dragged), and the next frame waits until HEAVY_FRAME_INTERVAL_MS after it: changes arriving
 * meanwhile coalesce, so a heavy stream costs the encoders at most ~30 frames a second while
 * small changes (typing, a click, a blinking cursor) still go out at once.
 */
export const HEAVY_FRAME_PIXELS = 64 * 1024;
export const HEAVY_FRAME_INTERVAL_MS = 33;

/** A small region drawn as more solid rectangles than this is sent as an image instead. */
export const MAX_FILL_RECTS = 16;

/**
 * Largest image sent in one piece; larger rectangles go as horizontal bands. libwebp's
 * lossless encoder slows down on big images (measured on a 3840×1080 screen of text: 165 ms
 * in one piece, 86 ms as four bands), and bands encode on separate workers at once.
 */
export const MAX_IMAGE_PIXELS = 512 * 1024;

/** `rect` as bands of at most MAX_IMAGE_PIXELS (at least 16 rows each), top to bottom. */
export function imageBands(rect: Rect): Rect[] {
  if (area(rect) <= MAX_IMAGE_PIXELS) return [rect];
  const count = Math.min(Math.ceil(area(rect) / MAX_IMAGE_PIXELS), Math.ceil(rect.height / 16));
  const rows = Math.ceil(rect.height / count);
  const bands: Rect[] = [];
  for (let y = rect.y; y < rect.y + rect.height; y += rows) {
    bands.push({
      x: rect.x,
      y,
      width: rect.width,
      height: Math.min(rows, rect.y + rect.height - y),
    });
  }
  return bands;
}

/** Lossy pixels left unchanged this long are redrawn losslessly. */
export const DEFAULT_LOSSY_SETTLE_MS = 300;

/** Quality range, and the frame round trips (send → `sync`) they map to. */
const BEST_QUALITY = 85;
const WORST_QUALITY = 35;
const FAST_ROUND_TRIP_MS = 40;
/** A round trip this slow or slower gets the worst quality (what a glancing browser gets). */
export const SLOW_ROUND_TRIP_MS = 300;

/**
 * JPEG/WebP quality for a browser whose frames take `roundTripMs` from being sent to being
 * acknowledged: best while it keeps up, falling linearly to the worst as it lags, so a
 * struggling browser gets smaller images and catches up.
 */
export function qualityFor(roundTripMs: number): number {
  const span = SLOW_ROUND_TRIP_MS - FAST_ROUND_TRIP_MS;
  const lag = Math.min(1, Math.max(0, (roundTripMs - FAST_ROUND_TRIP_MS) / span));
  // Steps of 5, so browsers that lag alike share encodes (encodeCache.ts).
  return Math.round((BEST_QUALITY - lag * (BEST_QUALITY - WORST_QUALITY)) / 5) * 5;
}

export interface PolicyInput {
  policy: LossyPolicy;
  /** The browser's lossy format; undefined when it takes none. */
  lossyMimetype: LossyMimetype | undefined;
  losslessMimetype: LosslessMimetype;
  /** Must be exact: it overlaps a settled lossy region being refreshed. */
  refresh: boolean;
  /** The area changes often (ChangeRate.busy). */
  busy: boolean;
  quality: number;
}

export function encodeModeFor(rect: Rect, input: PolicyInput): EncodeMode {
  const { policy, lossyMimetype, losslessMimetype: lossless, quality } = input;
  const exact = { kind: 'lossless', mimetype: lossless } as const;
  if (lossyMimetype === undefined || policy === 'never' || input.refresh) return exact;
  if (policy === 'always') {
    return { kind: 'lossy', mimetype: lossyMimetype, quality, force: true, lossless };
  }
  if (area(rect) <= SMALL_IMAGE_PIXELS || !input.busy) return exact;
  return { kind: 'lossy', mimetype: lossyMimetype, quality, force: false, lossless };
}
