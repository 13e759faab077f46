// Reconnect delays for the remote display: exponential growth from a base delay up to a cap,
// with symmetric random jitter so many viewers that lose the bridge at once do not all
// reconnect in the same instant. The delay spaces the starts of attempts that never connected:
// one that hung until a deadline before failing (into a stalled link, the bridge's link watch
// ends it after ~6 s) has already waited, and the next one starts at once — it is what finds the
// desktop back. Pure functions; the caller supplies the random source and the clock.

export interface BackoffPolicy {
  /** Delay before the first retry, in ms. */
  baseMs: number;
  /** Largest delay before jitter, in ms. */
  maxMs: number;
  /** Relative jitter: 0.3 spreads each delay uniformly over ±30 %. */
  jitter: number;
  /** A connection that stayed up this long counts as stable and resets the attempt count. */
  stableAfterMs: number;
}

export const DEFAULT_BACKOFF: BackoffPolicy = {
  baseMs: 500,
  maxMs: 10_000,
  jitter: 0.3,
  stableAfterMs: 10_000,
};

/** Delay before jitter for the given retry (0 = first retry): base·2^attempt, capped. */
export function nominalDelay(attempt: number, policy: BackoffPolicy = DEFAULT_BACKOFF): number {
  if (!Number.isInteger(attempt) || attempt < 0) {
    throw new RangeError(`attempt must be a non-negative integer, got ${String(attempt)}`);
  }
  // 2 ** attempt overflows to Infinity for huge attempts; Math.min still yields the cap.
  return Math.min(policy.maxMs, policy.baseMs * 2 ** attempt);
}

/**
 * Jittered delay for the given retry. `random` returns a number in [0, 1) (Math.random by
 * default); the result lies in [nominal·(1−jitter), nominal·(1+jitter)] and is rounded to a
 * whole millisecond.
 */
export function backoffDelay(
  attempt: number,
  policy: BackoffPolicy = DEFAULT_BACKOFF,
  random: () => number = Math.random,
): number {
  const nominal = nominalDelay(attempt, policy);
  const factor = 1 + policy.jitter * (2 * random() - 1);
  return Math.round(nominal * factor);
}

/**
 * What is left of `delayMs` after a failed attempt that never connected and took `attemptMs`
 * from its start: the back-off is measured from start to start, so a slow failure does not wait
 * twice. Fast failures (a refused connection, a bridge that is down) still wait nearly all of
 * it. Not for a connection that was up and dropped: viewers that lose the bridge together must
 * not all come back in the same instant, so that wait is whole.
 */
export function remainingDelay(delayMs: number, attemptMs: number): number {
  return Math.max(0, Math.round(delayMs - Math.max(0, attemptMs)));
}
