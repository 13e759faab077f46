// Ends standing permissions when they are due, with one timer set for the earliest end and none
// at all while no timed standing permission exists — an idle window runs no clock for them (it
// used to check every second whether any had ended, with or without one).
import type { StoreApi } from 'zustand/vanilla';
import type { ShownStandingPermission, StandingState } from './standing.js';

export interface ExpiryClock {
  now: () => number;
  setTimer: (fn: () => void, ms: number) => unknown;
  clearTimer: (timer: unknown) => void;
}

const realClock: ExpiryClock = {
  now: Date.now,
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
    timer = clock.setTimer(fire, Math.max(0, next - clock.now()));
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
