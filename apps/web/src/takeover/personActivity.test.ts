import { describe, expect, it } from 'vitest';
import {
  PERSON_IDLE_MS,
  PersonActivity,
  TAKEN_OVER_MESSAGE,
  createTakeOverStore,
} from './personActivity.js';

/** A fake clock: sleeping advances time at once (and lets a test act at chosen moments). */
function fakeClock(onSleep?: (now: number) => void) {
  let now = 10_000;
  return {
    now: () => now,
    sleep: (ms: number) => {
      now += ms;
      onSleep?.(now);
      return Promise.resolve();
    },
  };
}

describe('PersonActivity', () => {
  it('lets AI input through at once when the person is idle', async () => {
    const activity = new PersonActivity(createTakeOverStore(), fakeClock());
    await expect(activity.waitForTurn(new AbortController().signal, 1e9)).resolves.toEqual({
      waitedMs: 0,
      tookOver: false,
    });
  });

  it('waits until the person has been idle for a moment, and says how long', async () => {
    const clock = fakeClock();
    const activity = new PersonActivity(createTakeOverStore(), clock);
    activity.touched();
    const { waitedMs, tookOver } = await activity.waitForTurn(new AbortController().signal, 1e9);
    expect(waitedMs).toBeGreaterThanOrEqual(PERSON_IDLE_MS);
    expect(waitedMs).toBeLessThan(PERSON_IDLE_MS + 300);
    expect(tookOver).toBe(false);
  });

  it('keeps waiting while the person keeps going', async () => {
    let touches = 5;
    const store = createTakeOverStore();
    const holder: { activity?: PersonActivity } = {};
    const clock = fakeClock(() => {
      if (touches-- > 0) holder.activity?.touched();
    });
    const activity = new PersonActivity(store, clock);
    holder.activity = activity;
    activity.touched();
    const { waitedMs } = await activity.waitForTurn(new AbortController().signal, 1e9);
    expect(waitedMs).toBeGreaterThan(PERSON_IDLE_MS + 5 * 10);
  });

  it('waits while taken over, resumes when handed back saying it was, and fails at the deadline saying why', async () => {
    const store = createTakeOverStore();
    store.getState().takenOverChanged(true);
    let handBackAt = 12_000;
    const clock = fakeClock((now) => {
      if (now >= handBackAt) store.getState().takenOverChanged(false);
    });
    const activity = new PersonActivity(store, clock);
    await expect(activity.waitForTurn(new AbortController().signal, 1e9)).resolves.toEqual({
      waitedMs: 2_000,
      tookOver: true,
    });

    store.getState().takenOverChanged(true);
    handBackAt = Number.POSITIVE_INFINITY;
    const failed = activity.waitForTurn(new AbortController().signal, clock.now() + 5_000);
    await expect(failed).rejects.toThrow(TAKEN_OVER_MESSAGE);
    await expect(failed).rejects.toMatchObject({ kind: 'cancelled' });
    expect(TAKEN_OVER_MESSAGE).toMatch(/^The person has taken over the desktop/);
  });

  it('counts a take-over and hand back quicker than one nap', async () => {
    const store = createTakeOverStore();
    const holder: { activity?: PersonActivity } = {};
    let once = true;
    const clock = fakeClock(() => {
      if (!once) return;
      once = false;
      store.getState().takenOverChanged(true);
      store.getState().takenOverChanged(false);
    });
    const activity = new PersonActivity(store, clock);
    holder.activity = activity;
    activity.touched();
    await expect(activity.waitForTurn(new AbortController().signal, 1e9)).resolves.toMatchObject({
      tookOver: true,
    });
  });

  it('waits for a hand back only, not for the person to stop moving', async () => {
    const store = createTakeOverStore();
    store.getState().takenOverChanged(true);
    const clock = fakeClock((now) => {
      if (now >= 11_000) store.getState().takenOverChanged(false);
    });
    const activity = new PersonActivity(store, clock);
    activity.touched();
    const turn = await activity.waitForHandBack(new AbortController().signal, 1e9);
    expect(turn).toEqual({ waitedMs: 1_000, tookOver: true });
    // Moving the mouse is no reason to wait there.
    activity.touched();
    await expect(activity.waitForHandBack(new AbortController().signal, 1e9)).resolves.toEqual({
      waitedMs: 0,
      tookOver: false,
    });
  });

  it('stops waiting at once when the call is cancelled', async () => {
    const store = createTakeOverStore();
    store.getState().takenOverChanged(true);
    const abort = new AbortController();
    abort.abort(new Error('Stop'));
    const activity = new PersonActivity(store, fakeClock());
    await expect(activity.waitForTurn(abort.signal, 1e9)).rejects.toThrow();
  });
});
