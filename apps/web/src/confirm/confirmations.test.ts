// The confirmation rules: only an explicit approval resolves true; Deny, the timeout (default
// and shorter deadlines), cancellation and Stop all deny, and settle exactly once.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createConfirmationStore } from '../store/pendingConfirmations.js';
import { Confirmations, DEFAULT_CONFIRM_TIMEOUT_MS } from './confirmations.js';

const click = { kind: 'click', x: 10, y: 20, button: 'left', clicks: 1 } as const;

describe('Confirmations', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  function setup() {
    const store = createConfirmationStore();
    return { store, confirmations: new Confirmations(store, () => Date.now()) };
  }

  it('shows the request and resolves true only on approval', async () => {
    const { store, confirmations } = setup();
    const answer = confirmations.ask(click);
    const [pending] = store.getState().pending;
    expect(pending?.details).toEqual(click);
    confirmations.answer(pending?.id ?? '', true);
    await expect(answer).resolves.toBe(true);
    expect(store.getState().pending).toHaveLength(0);
  });

  it('denies on Deny', async () => {
    const { store, confirmations } = setup();
    const answer = confirmations.ask(click);
    confirmations.answer(store.getState().pending[0]?.id ?? '', false);
    await expect(answer).resolves.toBe(false);
  });

  it('denies after 30 s without an answer, and not before', async () => {
    const { store, confirmations } = setup();
    let settled: boolean | undefined;
    void confirmations.ask(click).then((v) => (settled = v));
    expect(store.getState().pending[0]?.deadlineAt).toBe(Date.now() + DEFAULT_CONFIRM_TIMEOUT_MS);
    await vi.advanceTimersByTimeAsync(DEFAULT_CONFIRM_TIMEOUT_MS - 1);
    expect(settled).toBeUndefined();
    await vi.advanceTimersByTimeAsync(1);
    expect(settled).toBe(false);
    expect(store.getState().pending).toHaveLength(0);
  });

  it('uses a shorter deadline, never a longer one', async () => {
    const { confirmations } = setup();
    const short = confirmations.ask(click, { timeoutMs: 500 });
    const long = confirmations.ask(click, { timeoutMs: 3_600_000 });
    await vi.advanceTimersByTimeAsync(500);
    await expect(short).resolves.toBe(false);
    await vi.advanceTimersByTimeAsync(DEFAULT_CONFIRM_TIMEOUT_MS);
    await expect(long).resolves.toBe(false);
  });

  it('treats a NaN timeout as the default window', async () => {
    const { confirmations } = setup();
    const answer = confirmations.ask(click, { timeoutMs: Number.NaN });
    await vi.advanceTimersByTimeAsync(DEFAULT_CONFIRM_TIMEOUT_MS);
    await expect(answer).resolves.toBe(false);
  });

  it('denies when the call is cancelled, even if approved afterwards', async () => {
    const { store, confirmations } = setup();
    const controller = new AbortController();
    const answer = confirmations.ask(click, { signal: controller.signal });
    const id = store.getState().pending[0]?.id ?? '';
    controller.abort();
    confirmations.answer(id, true);
    await expect(answer).resolves.toBe(false);
    await expect(confirmations.ask(click, { signal: controller.signal })).resolves.toBe(false);
  });

  it('arms the next request from when it comes to the front, not from when it was asked', async () => {
    const { store, confirmations } = setup();
    const start = Date.now();
    void confirmations.ask(click);
    await vi.advanceTimersByTimeAsync(1000);
    void confirmations.ask({ kind: 'type', text: 'next' });
    expect(store.getState().pending.map((p) => p.frontAt)).toEqual([start, null]);
    await vi.advanceTimersByTimeAsync(5000);
    confirmations.answer(store.getState().pending[0]?.id ?? '', true);
    expect(store.getState().pending[0]?.frontAt).toBe(start + 6000);
    confirmations.denyAll();
  });

  it('Stop denies every pending confirmation at once', async () => {
    const { store, confirmations } = setup();
    const answers = [confirmations.ask(click), confirmations.ask({ kind: 'type', text: 'hi' })];
    expect(store.getState().pending).toHaveLength(2);
    confirmations.denyAll();
    await expect(Promise.all(answers)).resolves.toEqual([false, false]);
    expect(store.getState().pending).toHaveLength(0);
    expect(confirmations.pendingCount).toBe(0);
  });
});
