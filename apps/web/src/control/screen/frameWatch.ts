// Knows when the remote picture changed. guacamole-common-js 1.5.0 has no "frame drawn" event:
// Client.onsync fires when a sync instruction arrives, before its images are decoded and drawn.
// Display.flush(callback) is what the client calls per frame, and the callback runs once the
// frame is really on the canvas, so we wrap the display's flush to hear about drawn frames.
// After drawn frames that changed the picture or the masks (at most every SAMPLE_INTERVAL_MS; a
// frame that drew nothing — a bare sync, the remote cursor moving — is not read back, so an idle
// desktop and a mouse_move cost no readback) the display is flattened, the person's privacy
// masks are blacked out of it, and it is hashed: listeners get the pixels, the frame's
// dirty rectangle and the time — so wait_for_screen, screenshot stability and screen_change
// events never see (or react to) what happens inside a mask. It also keeps the frames' cadence
// (frameCadence.ts: is the picture known to be current?), tells waiters when the display they
// watch goes away (the connection dropped or was replaced), and numbers the picture's versions:
// pictureVersion changes whenever a call that may change the picture is queued and again when
// the frame holding it is drawn (displayChanges.ts), so a capture tagged with the version it saw
// is still the picture on screen while the version has not moved (lastShot.ts).
import type Guacamole from 'guacamole-common-js';
import type { PrivacyMask } from '@overlay-companion/protocol';
import { watchDisplayChanges } from './displayChanges.js';
import { FrameCadence } from './frameCadence.js';
import { blackOut } from './masks.js';
import { dirtyRect, gridHashes, type PixelRect } from './pixelHash.js';

/** Least time between two samples: flatten + hash of a 1280×800 desktop takes a few ms. */
export const SAMPLE_INTERVAL_MS = 100;
/**
 * Sampling may use at most 1/SAMPLE_BUDGET of the time: a sample that took 20 ms (a 4K desktop)
 * pushes the next one 200 ms away, so a busy screen never costs the page more than ~10 %.
 */
export const SAMPLE_BUDGET = 10;
/** Cell size of the dirty-region grid, desktop pixels. */
export const GRID_CELL = 32;

export interface FrameSample {
  data: Uint8ClampedArray;
  width: number;
  height: number;
  /** What changed since the previous sample; undefined when nothing did. */
  dirty: PixelRect | undefined;
  at: number;
}

export type SampleListener = (sample: FrameSample) => void;

/** One list for "no masks", so an unchanged answer is the same array (see #sampledMasks). */
const NO_MASKS: readonly PrivacyMask[] = [];

type FlushFn = (callback?: () => void, timestamp?: number, frames?: number) => void;

export class FrameWatch {
  #display: Guacamole.Display | null = null;
  #restore: (() => void) | null = null;
  readonly #listeners = new Set<SampleListener>();
  #grid: Uint32Array | null = null;
  #lastSampleAt = 0;
  #intervalMs = SAMPLE_INTERVAL_MS;
  #timer: ReturnType<typeof setTimeout> | undefined;
  #latest: FrameSample | undefined;
  /** Frame times of the display followed now (replaced on attach). */
  cadence = new FrameCadence();
  readonly #lostListeners = new Set<() => void>();
  readonly #masks: () => readonly PrivacyMask[];
  /** Never reset (a new display is a new version too), so versions of two displays never meet. */
  #version = 0;
  /** A change was queued since the last flush: the frame that flush draws changes the picture. */
  #changedSinceFlush = false;
  /**
   * The picture version and the masks the last sample saw: a frame that changed neither (a sync
   * alone, the remote cursor moved) would give the same sample, so it is not read back again.
   */
  #sampledVersion = -1;
  #sampledMasks: readonly PrivacyMask[] | undefined;

  /** `masks`: the person's privacy masks right now (none by default). */
  constructor(masks: () => readonly PrivacyMask[] = () => NO_MASKS) {
    this.#masks = masks;
  }

  /** Follow a new client's display (null: none). */
  attach(client: Guacamole.Client | null): void {
    const hadDisplay = this.#display !== null;
    this.#restore?.();
    this.#restore = null;
    this.#display = null;
    this.#grid = null;
    this.#latest = undefined;
    this.cadence = new FrameCadence();
    this.#version += 1;
    this.#changedSinceFlush = false;
    if (hadDisplay) for (const listener of [...this.#lostListeners]) listener();
    if (client === null) return;
    const display = client.getDisplay();
    const holder = display as unknown as { flush: FlushFn };
    const original = holder.flush;
    const unwatch = watchDisplayChanges(display, () => {
      this.#version += 1;
      this.#changedSinceFlush = true;
    });
    holder.flush = (callback, timestamp, frames) => {
      const changes = this.#changedSinceFlush;
      this.#changedSinceFlush = false;
      original.call(
        display,
        () => {
          // Its tasks ran just before this: the picture is another one now.
          if (changes) this.#version += 1;
          callback?.();
          this.#frameDrawn();
        },
        timestamp,
        frames,
      );
    };
    this.#display = display;
    this.#restore = () => {
      holder.flush = original;
      unwatch();
    };
  }

  /**
   * The version of the picture `display` shows now, when it is the display followed here
   * (undefined otherwise: nothing is known about its changes). Equal versions, equal pictures.
   */
  pictureVersion(display: Guacamole.Display): number | undefined {
    return display === this.#display ? this.#version : undefined;
  }

  /**
   * Listen to samples; returns the unsubscribe function. The first listener after none finds
   * the picture read at once as the baseline (told to no one) unless the last sample is still
   * the picture: no frame is read back while nobody listens, so without it the first change
   * after subscribing would be compared with an older picture, or with none, and its dirty
   * rectangle lost or wrong (screen_change).
   */
  subscribe(listener: SampleListener): () => void {
    const sampleIsCurrent =
      this.#version === this.#sampledVersion && this.#masks() === this.#sampledMasks;
    if (this.#listeners.size === 0 && !sampleIsCurrent) {
      clearTimeout(this.#timer);
      this.#timer = undefined;
      this.#sample();
    }
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** Epoch ms of the last drawn frame (whether or not its pixels changed); 0 before one. */
  get lastFrameAt(): number {
    return this.cadence.lastFrameAt;
  }

  /** Called when the display followed until now goes away; returns the unsubscribe function. */
  onLost(listener: () => void): () => void {
    this.#lostListeners.add(listener);
    return () => this.#lostListeners.delete(listener);
  }

  /** A sample of the picture as it is now (taken fresh); undefined when nothing is shown. */
  sampleNow(): FrameSample | undefined {
    clearTimeout(this.#timer);
    this.#timer = undefined;
    return this.#sample();
  }

  #frameDrawn(): void {
    this.cadence.frame(Date.now());
    if (this.#listeners.size === 0 || this.#timer !== undefined) return;
    if (this.#version === this.#sampledVersion && this.#masks() === this.#sampledMasks) return;
    const wait = Math.max(0, this.#lastSampleAt + this.#intervalMs - Date.now());
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      this.#sample();
    }, wait);
  }

  #sample(): FrameSample | undefined {
    const display = this.#display;
    if (display === null) return undefined;
    const width = display.getWidth();
    const height = display.getHeight();
    if (width <= 0 || height <= 0) return undefined;
    this.#lastSampleAt = Date.now();
    const masks = this.#masks();
    this.#sampledVersion = this.#version;
    this.#sampledMasks = masks;
    const canvas = display.flatten();
    const context = canvas.getContext('2d', { willReadFrequently: true });
    if (context === null) return undefined;
    const data = context.getImageData(0, 0, width, height).data;
    blackOut(data, width, height, masks);
    const grid = gridHashes(data, width, height, GRID_CELL);
    const dirty =
      this.#grid === null ? undefined : dirtyRect(this.#grid, grid, width, height, GRID_CELL);
    this.#grid = grid;
    const cost = Date.now() - this.#lastSampleAt;
    this.#intervalMs = Math.max(SAMPLE_INTERVAL_MS, cost * SAMPLE_BUDGET);
    const sample: FrameSample = { data, width, height, dirty, at: this.#lastSampleAt };
    this.#latest = sample;
    for (const listener of [...this.#listeners]) listener(sample);
    return sample;
  }

  get latest(): FrameSample | undefined {
    return this.#latest;
  }
}
