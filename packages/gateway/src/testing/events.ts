// Awaiting events with a deadline, so a test that waits for something that never comes fails
// with a message instead of hanging until the runner's timeout.
import type { EventEmitter } from 'node:events';

/** Resolves with the arguments of the next `event` that satisfies `accept`, or rejects after `timeoutMs`. */
export function nextEvent<T extends unknown[] = unknown[]>(
  emitter: EventEmitter,
  event: string,
  timeoutMs = 5000,
  accept: (...args: T) => boolean = () => true,
): Promise<T> {
  return new Promise((resolve, reject) => {
    const listener = (...args: unknown[]) => {
      if (!accept(...(args as T))) return;
      clearTimeout(timer);
      emitter.off(event, listener);
      resolve(args as T);
    };
    const timer = setTimeout(() => {
      emitter.off(event, listener);
      reject(new Error(`no '${event}' event within ${timeoutMs} ms`));
    }, timeoutMs);
    emitter.on(event, listener);
  });
}

/** What a check returns while the awaited thing has not happened yet. */
type NotYet = undefined | null | false;

/**
 * Polls `check` until it returns something other than `undefined`, `null` or `false` — so a
 * check written as `() => done` waits for `done` and a check that finds data returns it — or
 * throws after `timeoutMs`. A check that throws counts as "not yet" (its last error is in the
 * failure's message). The one definition every package's tests use (the bridge imports it from
 * `@overlay-companion/gateway/testing`): a second helper of this name with other rules let checks
 * returning `false` end at once and assert nothing.
 */
export async function eventually<T>(
  what: string,
  check: () => T | NotYet | Promise<T | NotYet>,
  timeoutMs = 10_000,
): Promise<Exclude<T, NotYet>> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const value = await check();
      if (value !== undefined && value !== null && value !== false)
        return value as Exclude<T, NotYet>;
    } catch (error) {
      last = error;
    }
    if (Date.now() > deadline)
      throw new Error(
        `${what} did not happen within ${String(timeoutMs)} ms${last instanceof Error ? ` (${last.message})` : ''}`,
      );
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
