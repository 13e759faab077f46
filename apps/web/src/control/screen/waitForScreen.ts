// Waiting on the picture: wait_for_screen (until it changes, or until it has been still for
// stable_ms) and take_screenshot's wait_for_stable_ms. Built on FrameWatch samples and region
// hashes; a still desktop sends no frames, so "stable" is also checked on a timer. Silence is not
// stability: the wait fails (retryably) when the display goes away, or when a connection that
// keeps a still picture alive with frames stops sending them (frameCadence.ts).
import type { Rect } from '@overlay-companion/protocol';
import { cancelledError } from '../sleep.js';
import { displayLostError, framesStoppedError } from './frameCadence.js';
import type { FrameSample, FrameWatch } from './frameWatch.js';
import { hashRect } from './pixelHash.js';

const STABLE_CHECK_MS = 25;

function regionHash(sample: FrameSample, region: Rect | undefined): number {
  return hashRect(
    sample.data,
    sample.width,
    region ?? { x: 0, y: 0, width: sample.width, height: sample.height },
  );
}

export interface WaitOutcome {
  satisfied: boolean;
  waitedMs: number;
}

/**
 * Resolves when the region's pixels change (`changed`) or have not changed for `stableMs`
 * (`stable`), or with satisfied=false after `timeoutMs`. Rejects when `signal` aborts, when
 * the display goes away and when frames stop arriving (a retryable viewer_unavailable).
 */
export function waitForScreen(
  watch: FrameWatch,
  options: {
    until: 'changed' | 'stable';
    region?: Rect | undefined;
    timeoutMs: number;
    stableMs: number;
  },
  signal: AbortSignal,
): Promise<WaitOutcome> {
  const started = Date.now();
  return new Promise<WaitOutcome>((resolve, reject) => {
    if (signal.aborted) {
      reject(cancelledError(signal));
      return;
    }
    const silentAtStart = watch.cadence.silentForMs(started);
    if (silentAtStart !== undefined) {
      reject(framesStoppedError(silentAtStart));
      return;
    }
    const first = watch.sampleNow();
    let last = first === undefined ? undefined : regionHash(first, options.region);
    const initial = last;
    let lastChangeAt = started;
    const finish = (satisfied: boolean) => {
      cleanup();
      resolve({ satisfied, waitedMs: Math.min(120_000, Date.now() - started) });
    };
    const unsubscribe = watch.subscribe((sample) => {
      const hash = regionHash(sample, options.region);
      if (hash !== last) {
        last = hash;
        lastChangeAt = Date.now();
      }
      if (options.until === 'changed' && initial !== undefined && hash !== initial) finish(true);
      // No picture at the start (not connected yet): the first picture counts as a change.
      if (options.until === 'changed' && initial === undefined) finish(true);
    });
    const fail = (error: Error) => {
      cleanup();
      reject(error);
    };
    const unsubscribeLost = watch.onLost(() => fail(displayLostError()));
    const stableTimer = setInterval(() => {
      const now = Date.now();
      const silentFor = watch.cadence.silentForMs(now);
      if (silentFor !== undefined) fail(framesStoppedError(silentFor));
      else if (options.until === 'stable' && now - lastChangeAt >= options.stableMs) finish(true);
    }, STABLE_CHECK_MS);
    const timeout = setTimeout(() => finish(false), options.timeoutMs);
    const onAbort = () => {
      cleanup();
      reject(cancelledError(signal));
    };
    signal.addEventListener('abort', onAbort, { once: true });
    function cleanup() {
      unsubscribe();
      unsubscribeLost();
      clearInterval(stableTimer);
      clearTimeout(timeout);
      signal.removeEventListener('abort', onAbort);
    }
  });
}
