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

/** Polls `check` until it returns a value other than undefined, or throws after `timeoutMs`. */
export async function eventually<T>(
  what: string,
  check: () => Promise<T | undefined>,
  timeoutMs = 5000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const value = await check();
      if (value !== undefined) return value;
    } catch (error) {
      last = error;
    }
    if (Date.now() > deadline)
      throw new Error(
        `${what} did not happen within ${timeoutMs} ms${last instanceof Error ? ` (${last.message})` : ''}`,
      );
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
