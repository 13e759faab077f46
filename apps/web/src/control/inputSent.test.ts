// input_sent through the real controller, policy gate, PersonActivity and input handlers around
// a recording FAKE Guacamole client (testing/controllerHarness.ts): a call that came with a
// receipt token asks its receipt under the token and tells the bridge, as its input leaves,
// exactly the answer it gives afterwards — the person's confirmation and the wait for the
// person included — so the bridge may settle the call from the receipt (relay/earlySettlement.ts).
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { ViewerToBridge } from '@overlay-companion/protocol';
import { createTakeOverStore } from '../takeover/personActivity.js';
import { hello, msg, setup } from './testing/controllerHarness.js';

const TOKEN = `r${'5a'.repeat(16)}`;

function receiptSetup(mode: 'assist' | 'autopilot') {
  const takeOver = createTakeOverStore();
  const harness = setup({ takeOver });
  harness.controller.handle(hello('control', mode));
  const of = (type: ViewerToBridge['type']) => harness.sent.filter((m) => m.type === type);
  return { ...harness, takeOver, of };
}

const inputCall = (id: string, name: string, args: unknown, policy = 'allow', receipt = TOKEN) =>
  msg({ type: 'tool_call', id, name, args, policy, deadline_ms: 20_000, receipt });

describe('input_sent', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it('announces the answer of a mouse_move before answering it, the same answer', async () => {
    const { controller, of, sent } = receiptSetup('autopilot');
    controller.handle(inputCall('c1', 'mouse_move', { x: 10, y: 20 }));
    await vi.advanceTimersByTimeAsync(0);
    expect(of('input_sent')).toEqual([{ type: 'input_sent', id: 'c1', result: { success: true } }]);
    expect(of('tool_result')).toEqual([
      { type: 'tool_result', id: 'c1', result: { success: true } },
    ]);
    expect(sent.findIndex((m) => m.type === 'input_sent')).toBeLessThan(
      sent.findIndex((m) => m.type === 'tool_result'),
    );
  });

  it("a confirmed click announces was_confirmed and the person's wait, as its answer says", async () => {
    const { controller, of, confirmations, pending, person } = receiptSetup('assist');
    controller.handle(inputCall('c2', 'click_at', { x: 100, y: 200 }, 'confirm'));
    await vi.advanceTimersByTimeAsync(0);
    // The person was on the desktop a moment ago: the approved click waits for them to pause.
    person?.touched();
    confirmations.answer(pending()[0]?.id ?? '', true);
    await vi.advanceTimersByTimeAsync(5_000);
    const [announced] = of('input_sent');
    const [answered] = of('tool_result');
    expect(announced).toMatchObject({
      id: 'c2',
      result: { success: true, was_confirmed: true },
    });
    expect(
      (announced as { result: { waited_for_person_ms?: number } }).result.waited_for_person_ms,
    ).toBeGreaterThan(0);
    expect(answered).toEqual({ ...announced, type: 'tool_result' });
  });

  it('no token, no announcement; a call that fails before its input leaves announces nothing', async () => {
    const { controller, of } = receiptSetup('autopilot');
    controller.handle(
      msg({
        type: 'tool_call',
        id: 'c3',
        name: 'mouse_move',
        args: { x: 1, y: 1 },
        policy: 'allow',
        deadline_ms: 5_000,
      }),
    );
    controller.handle(inputCall('c4', 'mouse_move', { x: 5_000, y: 1 }));
    await vi.advanceTimersByTimeAsync(0);
    expect(of('input_sent')).toEqual([]);
    expect(of('tool_result')).toHaveLength(1);
    expect(of('tool_error')).toMatchObject([{ id: 'c4', kind: 'invalid_parameters' }]);
  });
});
