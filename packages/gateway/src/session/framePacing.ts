// When a browser's own next frame may go out (guacUser.ts): after a heavy frame no sooner than
// HEAVY_FRAME_INTERVAL_MS later; a passive watcher at full attention at most once per
// PASSIVE_FRAME_INTERVAL_MS; a glancing or thumbnail browser on the next tick of its interval,
// ticks falling on multiples of the interval, the same for every such browser of the gateway, so
// their frames hold the same changes and share encodes.
import {
  GLANCE_FRAME_INTERVAL_MS,
  PASSIVE_FRAME_INTERVAL_MS,
  type AttentionLevel,
} from '@overlay-companion/guac';
import { HEAVY_FRAME_INTERVAL_MS, HEAVY_FRAME_PIXELS } from './encodePolicy.js';

export class FramePacing {
  /** No frame before this time (performance.now()): the last one was heavy. */
  private heavyUntil = 0;
  /** When the last frame went out (performance.now()). */
  private lastFrameAt = Number.NEGATIVE_INFINITY;

  /**
   * A frame went out at `at` (performance.now()); `changedPixels` counts toward a heavy frame
   * only for frames of this browser's own pipeline at the desktop's size.
   */
  sent(at: number, changedPixels = 0): void {
    if (changedPixels >= HEAVY_FRAME_PIXELS) this.heavyUntil = at + HEAVY_FRAME_INTERVAL_MS;
    this.lastFrameAt = at;
  }

  /** The earliest time (performance.now()) the next frame may go out. */
  notBefore(browser: {
    attention: AttentionLevel;
    passive: boolean;
    /** How often a thumbnail browser takes a frame now (thumbnailFrames.ts). */
    thumbnailIntervalMs: number;
  }): number {
    if (browser.attention === 'full') {
      if (!browser.passive) return this.heavyUntil;
      return Math.max(this.heavyUntil, this.lastFrameAt + PASSIVE_FRAME_INTERVAL_MS);
    }
    const interval =
      browser.attention === 'thumbnail' ? browser.thumbnailIntervalMs : GLANCE_FRAME_INTERVAL_MS;
    const tick = (Math.floor(this.lastFrameAt / interval) + 1) * interval;
    return Math.max(this.heavyUntil, tick);
  }
}
