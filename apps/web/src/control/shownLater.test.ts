// An AI input call is shown (the AI pointer and ripple, the local cursor, ai_action for the other
// windows) once the desktop confirmed its input, not while its answer is on its way — through
// the real controller, policy gate and input handlers around the recording FAKE Guacamole client
// (testing/controllerHarness.ts), with the receipt answered when the test says.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { onAiAction, onAiActionRun } from '../activity/aiActivity.js';
import type { ConfirmDetails } from '../store/pendingConfirmations.js';
import { SHOW_AFTER_SETTLED_MS, SHOW_WITHIN_MS, ShownLater } from './shownLater.js';
import { call, hello, setup } from './testing/controllerHarness.js';

function shownSetup() {
  const receipts: Array<() => void> = [];
  const harness = setup({
    delivered: () => new Promise<void>((resolve) => receipts.push(resolve)),
  });
  harness.controller.handle(hello('control', 'autopilot'));
  const drawn: ConfirmDetails[] = [];
  const told: ConfirmDetails[] = [];
  undo.push(onAiAction((details) => drawn.push(details)));
  undo.push(onAiActionRun((details) => told.push(details)));
  return { ...harness, receipts, drawn, told };
}

const undo: Array<() => void> = [];

describe('showing an AI input call', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => {
    for (const u of undo.splice(0)) u();
    vi.useRealTimers();
  });

  it('a mouse_move leaves at once and is shown once the desktop confirmed it', async () => {
    const { controller, client, cursor, receipts, drawn, told, sent } = shownSetup();
    controller.handle(call('m1', 'mouse_move', { x: 10, y: 20 }));
    await vi.advanceTimersByTimeAsync(0);
    expect(client.sent).toEqual(['mouse,10,20,0']);
    expect(receipts).toHaveLength(1);
    // Not confirmed yet: nothing shown, no answer.
    expect(drawn).toEqual([]);
    expect(told).toEqual([]);
    expect(cursor).toEqual([]);
    expect(sent.filter((m) => m.type === 'tool_result')).toEqual([]);

    receipts[0]?.();
    await vi.advanceTimersByTimeAsync(0);
    // Answered at once; shown a moment later, once the AI client's answer is on its way.
    expect(sent.filter((m) => m.type === 'tool_result')).toEqual([
      { type: 'tool_result', id: 'm1', result: { success: true } },
    ]);
    expect(drawn).toEqual([]);
    await vi.advanceTimersByTimeAsync(SHOW_AFTER_SETTLED_MS);
    expect(cursor).toEqual(['10,20']);
    expect(drawn).toHaveLength(1);
    expect(told).toHaveLength(1);
  });

  it('an input still unconfirmed after SHOW_WITHIN_MS is shown then; later moves move the cursor at once', async () => {
    const { controller, client, cursor, receipts, drawn } = shownSetup();
    controller.handle(
      call('d1', 'drag', { from: { x: 100, y: 100 }, to: { x: 300, y: 100 }, duration_ms: 400 }),
    );
    await vi.advanceTimersByTimeAsync(SHOW_WITHIN_MS - 1);
    // The drag is under way, its button down; the cursor and the action wait.
    expect(client.sent.slice(0, 2)).toEqual(['mouse,100,100,0', 'mouse,100,100,1']);
    expect(drawn).toEqual([]);
    expect(cursor).toEqual([]);

    await vi.advanceTimersByTimeAsync(1);
    expect(drawn).toHaveLength(1);
    // The cursor jumps to where the drag is now...
    const last = client.sent.at(-1)?.split(',');
    expect(cursor).toEqual([`${last?.[1]},${last?.[2]}`]);
    // ...and follows each later step as it leaves.
    await vi.advanceTimersByTimeAsync(500);
    expect(receipts).toHaveLength(1);
    expect(cursor.at(-1)).toBe('300,100');
    expect(cursor.length).toBeGreaterThan(2);
    receipts[0]?.();
    await vi.advanceTimersByTimeAsync(SHOW_AFTER_SETTLED_MS);
    expect(drawn).toHaveLength(1);
  });

  it('an input refused before it left moves no cursor', async () => {
    const { controller, client, cursor, receipts } = shownSetup();
    controller.handle(call('m2', 'mouse_move', { x: 5_000, y: 1 }));
    await vi.advanceTimersByTimeAsync(SHOW_WITHIN_MS);
    expect(client.sent).toEqual([]);
    expect(receipts).toEqual([]);
    expect(cursor).toEqual([]);
  });
});

describe('ShownLater in a hidden page', () => {
  it('holds nothing: a background tab paints nothing and its timers fire late', () => {
    const shown = new ShownLater(false);
    const seen: string[] = [];
    shown.show(() => seen.push('pointer'));
    expect(shown.held).toBe(false);
    shown.settled(() => seen.push('done'));
    expect(seen).toEqual(['pointer', 'done']);
  });
});
