import { describe, expect, it } from 'vitest';
import { StandingPermissionsMessage } from '@overlay-companion/protocol';
import { createStandingStore, type ShownStandingPermission } from './standing.js';
import { MAX_WAIT_MS, watchStandingExpiry, type ExpiryClock } from './standingExpiry.js';

/** A hand-driven clock: timers run only when the test advances time. */
function manualClock() {
  let now = 1_000_000;
  const timers = new Map<number, { at: number; fn: () => void }>();
  let next = 1;
  const clock: ExpiryClock = {
    now: () => now,
    setTimer: (fn, ms) => {
      const id = next++;
      timers.set(id, { at: now + ms, fn });
      return id;
    },
    clearTimer: (id) => void timers.delete(id as number),
  };
  const advance = (ms: number) => {
    now += ms;
    for (const [id, t] of [...timers].sort((a, b) => a[1].at - b[1].at))
      if (t.at <= now && timers.has(id)) {
        timers.delete(id);
        t.fn();
      }
  };
  /**
   * The wall clock moves while no timer runs (the machine slept, or its clock was set): timers
   * count running time, so each still waits what it had left.
   */
  const jump = (ms: number) => {
    now += ms;
    for (const t of timers.values()) t.at += ms;
  };
  return { clock, timers, advance, jump, now: () => now };
}

function message(permissions: Array<{ id: string; tool: string; in: number | null }>) {
  return StandingPermissionsMessage.parse({
    type: 'standing_permissions',
    permissions: permissions.map((p, i) => ({
      id: p.id,
      number: i + 1,
      tool: p.tool,
      client: { key: 'k', name: 'Claude', token: 'laptop' },
      granted_by: 'Ada',
      expires_in_ms: p.in,
    })),
  });
}

describe('watchStandingExpiry', () => {
  it('schedules no timer while no timed standing permission exists', () => {
    const store = createStandingStore();
    const { clock, timers, now } = manualClock();
    watchStandingExpiry(store, () => {}, clock);
    expect(timers.size).toBe(0);
    store.getState().received(message([{ id: 'a', tool: 'click_at', in: null }]), now());
    expect(timers.size).toBe(0);
  });

  it('ends each one when due with one timer, and none once all ended', () => {
    const store = createStandingStore();
    const { clock, timers, advance, now } = manualClock();
    const gone: ShownStandingPermission[] = [];
    watchStandingExpiry(store, (g) => gone.push(g), clock);
    store.getState().received(
      message([
        { id: 'a', tool: 'click_at', in: 5_000 },
        { id: 'b', tool: 'type_text', in: 2_000 },
      ]),
      now(),
    );
    expect(timers.size).toBe(1);
    advance(1_999);
    expect(gone).toEqual([]);
    advance(1);
    expect(gone.map((g) => g.id)).toEqual(['b']);
    expect(store.getState().permissions.map((p) => p.id)).toEqual(['a']);
    expect(timers.size).toBe(1);
    advance(3_000);
    expect(gone.map((g) => g.id)).toEqual(['b', 'a']);
    expect(store.getState().permissions).toEqual([]);
    expect(timers.size).toBe(0);
  });

  it('ends a permission within one short wait after the wall clock jumped past its end', () => {
    const store = createStandingStore();
    const { clock, advance, jump, now } = manualClock();
    const gone: ShownStandingPermission[] = [];
    watchStandingExpiry(store, (g) => gone.push(g), clock);
    store.getState().received(message([{ id: 'a', tool: 'click_at', in: 5 * 60_000 }]), now());
    jump(6 * 60_000);
    advance(MAX_WAIT_MS);
    expect(gone.map((g) => g.id)).toEqual(['a']);
  });

  it('drops its timer when the list is revoked, and after the undo', () => {
    const store = createStandingStore();
    const { clock, timers, now } = manualClock();
    const stop = watchStandingExpiry(store, () => {}, clock);
    store.getState().received(message([{ id: 'a', tool: 'click_at', in: 5_000 }]), now());
    expect(timers.size).toBe(1);
    store.getState().allRevoked();
    expect(timers.size).toBe(0);
    store.getState().received(message([{ id: 'a', tool: 'click_at', in: 5_000 }]), now());
    expect(timers.size).toBe(1);
    stop();
    expect(timers.size).toBe(0);
  });
});
