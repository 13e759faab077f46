// Ends standing permissions when they are due, with one timer set for the earliest end and none
// at all while no timed standing permission exists — an idle window runs no clock for them (it
// used to check every second whether any had ended, with or without one). The timer waits at
// most MAX_WAIT_MS at a time: timers count the machine's running time, ends are wall-clock
// times, and a laptop that slept (or a clock that was set) must not keep a permission past its
// end until a long timer finally fires.
import type { StoreApi } from 'zustand/vanilla';
import type { ShownStandingPermission, StandingState } from './standing.js';

export interface ExpiryClock {
  now: () => number;
  setTimer: (fn: () => void, ms: number) => unknown;
  clearTimer: (timer: unknown) => void;
}

/** The longest one wait of the expiry timer (a wall-clock jump is noticed within it). */
export const MAX_WAIT_MS = 1_000;

const realClock: ExpiryClock = {
  // Looked up at each call, not captured: a page's clock may be replaced (tests' fake clocks).
  now: () => Date.now(),
  setTimer: (fn, ms) => setTimeout(fn, ms),
  clearTimer: (timer) => clearTimeout(timer as ReturnType<typeof setTimeout>),
};

/** The earliest end among `permissions`; undefined when none has one. */
export function nextExpiry(permissions: readonly ShownStandingPermission[]): number | undefined {
  let next: number | undefined;
  for (const p of permissions)
    if (p.expiresAt !== null && (next === undefined || p.expiresAt < next)) next = p.expiresAt;
  return next;
}

/**
 * Drop each standing permission of `store` when it ends and tell `onGone` about it; returns the
 * undo. The timer follows the list: re-set on every change, cleared when nothing timed is left.
 */
export function watchStandingExpiry(
  store: StoreApi<StandingState>,
  onGone: (gone: ShownStandingPermission) => void,
  clock: ExpiryClock = realClock,
): () => void {
  let timer: unknown;
  let due: number | undefined;
  const schedule = () => {
    const next = nextExpiry(store.getState().permissions);
    if (next === due) return;
    if (due !== undefined) clock.clearTimer(timer);
    due = next;
    if (next === undefined) return;
    timer = clock.setTimer(fire, Math.min(MAX_WAIT_MS, Math.max(0, next - clock.now())));
  };
  const fire = () => {
    due = undefined;
    // expired() changes the list when something ended, and the subscription re-schedules; a
    // timer that fired a little early (clamped clocks) finds nothing and schedules again.
    for (const gone of store.getState().expired(clock.now())) onGone(gone);
    schedule();
  };
  const unsubscribe = store.subscribe((now, before) => {
    if (now.permissions !== before.permissions) schedule();
  });
  schedule();
  return () => {
    unsubscribe();
    if (due !== undefined) clock.clearTimer(timer);
    due = undefined;
  };
}
