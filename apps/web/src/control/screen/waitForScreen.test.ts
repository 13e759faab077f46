// waitForScreen and FrameWatch with a FAKE Guacamole display (flush, size, flatten → pixels):
// FrameWatch hooks the display's flush so the client's own callback still runs, samples after
// drawn frames at most every SAMPLE_INTERVAL_MS and reports the dirty rectangle, and reads back
// nothing for a frame that drew nothing unless the privacy masks changed; waitForScreen
// answers changed / stable / timeout and stops when cancelled.
import type Guacamole from 'guacamole-common-js';
import type { PrivacyMask } from '@overlay-companion/protocol';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { FRAME_SILENCE_MS } from './frameCadence.js';
import { FrameWatch, SAMPLE_INTERVAL_MS } from './frameWatch.js';
import { waitForScreen } from './waitForScreen.js';

/** A FAKE display: 64×32 pixels the test paints, and the flush the client calls per frame. */
class FakeDisplay {
  readonly width = 64;
  readonly height = 32;
  pixels = new Uint8ClampedArray(64 * 32 * 4);
  flushedCallbacks = 0;
  flatten = vi.fn(() => ({
    getContext: () => ({ getImageData: () => ({ data: this.pixels.slice() }) }),
  }));
  flush(callback?: () => void) {
    // The real display runs the callback once the frame is drawn.
    callback?.();
  }
  getWidth() {
    return this.width;
  }
  getHeight() {
    return this.height;
  }
  /**
   * A drawing call, an own method like the real display's (FrameWatch hears those as changes of
   * the picture).
   */
  paint = (x: number, y: number, red: number) => {
    this.pixels[(y * this.width + x) * 4] = red;
  };
  /** What the Guacamole client does for a `sync` instruction. */
  frame() {
    (this as unknown as { flush: (cb: () => void) => void }).flush(() => {
      this.flushedCallbacks += 1;
    });
  }
}

function setup(masks?: () => readonly PrivacyMask[]) {
  const display = new FakeDisplay();
  const client = { getDisplay: () => display } as unknown as Guacamole.Client;
  const watch = new FrameWatch(masks);
  watch.attach(client);
  return { display, watch };
}

describe('FrameWatch', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it('keeps the client flush callback and samples drawn frames, throttled, with the dirty rect', async () => {
    const { display, watch } = setup();
    const dirty: unknown[] = [];
    watch.subscribe((s) => dirty.push(s.dirty));
    display.paint(40, 5, 200);
    display.frame();
    display.frame();
    expect(display.flushedCallbacks).toBe(2);
    await vi.advanceTimersByTimeAsync(SAMPLE_INTERVAL_MS);
    // One sample for the two frames (plus the baseline read when the listener came): the grid
    // cell of (40, 5).
    expect(display.flatten).toHaveBeenCalledTimes(2);
    expect(dirty.at(-1)).toEqual({ x: 32, y: 0, width: 32, height: 32 });
  });

  it('reads nothing back for frames that drew nothing (a bare sync, a cursor move)', async () => {
    const { display, watch } = setup();
    const samples: unknown[] = [];
    watch.sampleNow();
    watch.subscribe((s) => samples.push(s));
    for (let i = 0; i < 5; i++) {
      display.frame();
      await vi.advanceTimersByTimeAsync(SAMPLE_INTERVAL_MS);
    }
    expect(display.flatten).toHaveBeenCalledTimes(1);
    expect(samples).toHaveLength(0);
    // A frame that draws is read back again.
    display.paint(1, 1, 9);
    display.frame();
    await vi.advanceTimersByTimeAsync(SAMPLE_INTERVAL_MS);
    expect(display.flatten).toHaveBeenCalledTimes(2);
  });

  it('reads the picture back after a frame once the masks changed, even when it drew nothing', async () => {
    let masks: readonly PrivacyMask[] = [];
    const { display, watch } = setup(() => masks);
    watch.subscribe(() => {});
    display.frame();
    await vi.advanceTimersByTimeAsync(SAMPLE_INTERVAL_MS);
    expect(display.flatten).toHaveBeenCalledTimes(1);
    masks = [{ x: 0, y: 0, width: 8, height: 8 }];
    display.frame();
    await vi.advanceTimersByTimeAsync(SAMPLE_INTERVAL_MS);
    expect(display.flatten).toHaveBeenCalledTimes(2);
  });

  it('gives the first change after subscribing its dirty rectangle (a baseline is read when the first listener comes)', async () => {
    const { display, watch } = setup();
    display.paint(2, 2, 50);
    display.frame();
    await vi.advanceTimersByTimeAsync(SAMPLE_INTERVAL_MS);
    expect(display.flatten).toHaveBeenCalledTimes(0); // nobody listens: nothing read back
    const dirty: unknown[] = [];
    watch.subscribe((s) => dirty.push(s.dirty));
    expect(display.flatten).toHaveBeenCalledTimes(1);
    expect(dirty).toEqual([]); // the baseline is told to no one
    display.paint(40, 20, 9);
    display.frame();
    await vi.advanceTimersByTimeAsync(SAMPLE_INTERVAL_MS);
    expect(dirty).toEqual([{ x: 32, y: 0, width: 32, height: 32 }]);
  });

  it('reads no baseline when the last sample is still the picture (waitForScreen samples first)', () => {
    const { watch, display } = setup();
    watch.sampleNow();
    watch.subscribe(() => {});
    expect(display.flatten).toHaveBeenCalledTimes(1);
  });

  it('puts the original flush back when the client goes away', () => {
    const { display, watch } = setup();
    const hooked = (display as unknown as { flush: unknown }).flush;
    watch.attach(null);
    expect((display as unknown as { flush: unknown }).flush).not.toBe(hooked);
    const original: unknown = Object.getOwnPropertyDescriptor(
      FakeDisplay.prototype,
      'flush',
    )?.value;
    expect((display as unknown as { flush: unknown }).flush).toBe(original);
  });
});

describe('waitForScreen', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it('until changed: satisfied by a change inside the region only', async () => {
    const { display, watch } = setup();
    const region = { x: 0, y: 0, width: 10, height: 10 };
    const signal = new AbortController().signal;
    const waiting = waitForScreen(
      watch,
      { until: 'changed', region, timeoutMs: 5000, stableMs: 500 },
      signal,
    );
    display.paint(50, 20, 9); // outside the region
    display.frame();
    await vi.advanceTimersByTimeAsync(SAMPLE_INTERVAL_MS);
    display.paint(3, 3, 9);
    display.frame();
    await vi.advanceTimersByTimeAsync(SAMPLE_INTERVAL_MS);
    await expect(waiting).resolves.toMatchObject({ satisfied: true });
  });

  it('until changed: not satisfied on timeout', async () => {
    const { watch } = setup();
    const waiting = waitForScreen(
      watch,
      { until: 'changed', timeoutMs: 300, stableMs: 50 },
      new AbortController().signal,
    );
    await vi.advanceTimersByTimeAsync(300);
    await expect(waiting).resolves.toEqual({ satisfied: false, waitedMs: 300 });
  });

  it('until stable: waits until nothing changed for stable_ms', async () => {
    const { display, watch } = setup();
    let result: unknown;
    void waitForScreen(
      watch,
      { until: 'stable', timeoutMs: 5000, stableMs: 300 },
      new AbortController().signal,
    ).then((r) => (result = r));
    for (let i = 0; i < 5; i++) {
      display.paint(i, 0, 100 + i);
      display.frame();
      await vi.advanceTimersByTimeAsync(SAMPLE_INTERVAL_MS);
    }
    expect(result).toBeUndefined();
    await vi.advanceTimersByTimeAsync(400);
    expect(result).toMatchObject({ satisfied: true });
    expect((result as { waitedMs: number }).waitedMs).toBeGreaterThanOrEqual(800);
  });

  it('rejects with cancelled when aborted', async () => {
    const { watch } = setup();
    const controller = new AbortController();
    const waiting = waitForScreen(
      watch,
      { until: 'stable', timeoutMs: 5000, stableMs: 300 },
      controller.signal,
    );
    controller.abort();
    await expect(waiting).rejects.toMatchObject({ kind: 'cancelled' });
  });

  /** The embedded gateway's keep-alive: a frame every ~2 s on a still desktop. */
  async function keepAliveFrames(display: FakeDisplay, count: number): Promise<void> {
    for (let i = 0; i < count; i++) {
      await vi.advanceTimersByTimeAsync(2000);
      display.frame();
    }
  }

  it('until stable: a still screen whose keep-alive frames keep arriving is stable', async () => {
    const { display, watch } = setup();
    await keepAliveFrames(display, 4);
    expect(watch.cadence.keepAlive).toBe(true);
    const waiting = waitForScreen(
      watch,
      { until: 'stable', timeoutMs: 10_000, stableMs: 3000 },
      new AbortController().signal,
    );
    await keepAliveFrames(display, 2);
    await expect(waiting).resolves.toMatchObject({ satisfied: true });
  });

  it('until stable: fails, retryably, when the keep-alive frames stop instead of calling silence stable', async () => {
    const { display, watch } = setup();
    await keepAliveFrames(display, 4);
    const waiting = waitForScreen(
      watch,
      { until: 'stable', timeoutMs: 30_000, stableMs: 8000 },
      new AbortController().signal,
    );
    const outcome = waiting.then(
      (r) => r,
      (e: unknown) => e,
    );
    // The link stalls: no frame from now on.
    await vi.advanceTimersByTimeAsync(FRAME_SILENCE_MS + 100);
    const error = (await outcome) as { kind?: string; retryAfterMs?: number; message?: string };
    expect(error.kind).toBe('viewer_unavailable');
    expect(error.message).toMatch(/No frame has arrived/);
    expect(error.retryAfterMs).toBeGreaterThan(0);
  });

  it('until changed: also fails when the frames stop, and a new wait on a silent link fails at once', async () => {
    const { display, watch } = setup();
    await keepAliveFrames(display, 4);
    const waiting = waitForScreen(
      watch,
      { until: 'changed', timeoutMs: 30_000, stableMs: 500 },
      new AbortController().signal,
    ).catch((e: unknown) => e);
    await vi.advanceTimersByTimeAsync(FRAME_SILENCE_MS + 100);
    expect(await waiting).toMatchObject({ kind: 'viewer_unavailable' });
    await expect(
      waitForScreen(
        watch,
        { until: 'stable', timeoutMs: 5000, stableMs: 100 },
        new AbortController().signal,
      ),
    ).rejects.toMatchObject({ kind: 'viewer_unavailable' });
  });

  it('until stable: fails when the display goes away during the wait (the desktop or its server died)', async () => {
    const { watch } = setup();
    const waiting = waitForScreen(
      watch,
      { until: 'stable', timeoutMs: 5000, stableMs: 1000 },
      new AbortController().signal,
    ).catch((e: unknown) => e);
    await vi.advanceTimersByTimeAsync(300);
    watch.attach(null);
    expect(await waiting).toMatchObject({ kind: 'viewer_unavailable' });
    expect(String((await waiting) as Error)).toMatch(/lost the remote desktop/);
  });

  it('without keep-alive frames (guacd) a long-still screen is stable, as before', async () => {
    const { watch } = setup();
    await vi.advanceTimersByTimeAsync(60_000);
    const waiting = waitForScreen(
      watch,
      { until: 'stable', timeoutMs: 20_000, stableMs: 10_000 },
      new AbortController().signal,
    );
    await vi.advanceTimersByTimeAsync(10_100);
    await expect(waiting).resolves.toMatchObject({ satisfied: true });
  });
});
