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
    await expect(activity.waitForTurn(new AbortController().signal, 1e9)).resolves.toBe(0);
  });

  it('waits until the person has been idle for a moment, and says how long', async () => {
    const clock = fakeClock();
    const activity = new PersonActivity(createTakeOverStore(), clock);
    activity.touched();
    const waited = await activity.waitForTurn(new AbortController().signal, 1e9);
    expect(waited).toBeGreaterThanOrEqual(PERSON_IDLE_MS);
    expect(waited).toBeLessThan(PERSON_IDLE_MS + 300);
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
    const waited = await activity.waitForTurn(new AbortController().signal, 1e9);
    expect(waited).toBeGreaterThan(PERSON_IDLE_MS + 5 * 10);
  });

  it('waits while taken over, resumes when handed back, and fails at the deadline saying why', async () => {
    const store = createTakeOverStore();
    store.getState().takenOverChanged(true);
    let handBackAt = 12_000;
    const clock = fakeClock((now) => {
      if (now >= handBackAt) store.getState().takenOverChanged(false);
    });
    const activity = new PersonActivity(store, clock);
    await expect(activity.waitForTurn(new AbortController().signal, 1e9)).resolves.toBe(2_000);

    store.getState().takenOverChanged(true);
    handBackAt = Number.POSITIVE_INFINITY;
    await expect(
      activity.waitForTurn(new AbortController().signal, clock.now() + 5_000),
    ).rejects.toThrow(TAKEN_OVER_MESSAGE);
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
