// The take-over rules as the control window applies them, through the real controller, stores,
// policy gate, PersonActivity and held actions around a recording FAKE Guacamole client
// (testing/controllerHarness.ts): input is not asked about while the person has the desktop and
// fails at its deadline saying so; a question open at the take-over is withdrawn; whatever was
// allowed before or during it runs after the hand back only on Run.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createTakeOverStore } from '../takeover/personActivity.js';
import { GIVE_UP_MARGIN_MS } from '../takeover/personActivity.js';
import { call, hello, msg, setup } from './testing/controllerHarness.js';

const CLICKED = ['mouse,100,200,0', 'mouse,100,200,1', 'mouse,100,200,0'];

function takenOverSetup(mode: 'assist' | 'autopilot') {
  const takeOver = createTakeOverStore();
  const harness = setup({ takeOver });
  harness.controller.handle(hello('control', mode));
  const answers = () =>
    harness.sent.filter((m) => m.type === 'tool_result' || m.type === 'tool_error');
  return { ...harness, takeOver, answers };
}

describe('take over', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it('does not ask about input while the person has the desktop; it fails at its deadline saying so', async () => {
    const { controller, takeOver, pending, client, answers } = takenOverSetup('assist');
    takeOver.getState().takenOverChanged(true);
    controller.handle(call('c1', 'click_at', { x: 100, y: 200 }, 'confirm', 10_000));
    await vi.advanceTimersByTimeAsync(9_000);
    expect(pending()).toEqual([]);
    expect(answers()).toEqual([]);
    await vi.advanceTimersByTimeAsync(10_000 - 9_000 - GIVE_UP_MARGIN_MS + 300);
    expect(answers()).toEqual([
      {
        type: 'tool_error',
        id: 'c1',
        kind: 'cancelled',
        message: expect.stringMatching(/^The person has taken over the desktop/) as string,
      },
    ]);
    expect(pending()).toEqual([]);
    expect(client.sent).toEqual([]);
  });

  it('asks only after the hand back, and then runs what the person approves then', async () => {
    const { controller, takeOver, pending, client, confirmations, answers, heldActions } =
      takenOverSetup('assist');
    takeOver.getState().takenOverChanged(true);
    controller.handle(call('c1', 'click_at', { x: 100, y: 200 }, 'confirm'));
    await vi.advanceTimersByTimeAsync(3_000);
    expect(pending()).toEqual([]);
    takeOver.getState().takenOverChanged(false);
    await vi.advanceTimersByTimeAsync(300);
    expect(pending()).toHaveLength(1);
    confirmations.answer(pending()[0]?.id ?? '', true);
    await vi.advanceTimersByTimeAsync(0);
    expect(heldActions()).toEqual([]); // approved after the hand back: nothing to confirm again
    expect(client.sent).toEqual(CLICKED);
    expect(answers()).toMatchObject([{ type: 'tool_result', id: 'c1' }]);
  });

  it('withdraws a question open at the take-over and tells the AI why', async () => {
    const { controller, takeOver, pending, client, answers } = takenOverSetup('assist');
    controller.handle(call('c1', 'click_at', { x: 100, y: 200 }, 'confirm'));
    expect(pending()).toHaveLength(1);
    takeOver.getState().takenOverChanged(true);
    await vi.advanceTimersByTimeAsync(0);
    expect(pending()).toEqual([]);
    expect(answers()).toEqual([
      {
        type: 'tool_error',
        id: 'c1',
        kind: 'cancelled',
        message: expect.stringMatching(
          /^The person has taken over the desktop .* withdrawn/,
        ) as string,
        asked: 'withdrawn', // the audit says so, not "denied"
      },
    ]);
    takeOver.getState().takenOverChanged(false);
    await vi.advanceTimersByTimeAsync(1_000);
    expect(client.sent).toEqual([]);
  });

  it('leaves other questions (a mode raise) open at the take-over', async () => {
    const { controller, takeOver, pending } = takenOverSetup('assist');
    controller.handle(
      msg({
        type: 'approval_request',
        request_id: 'r1',
        from_mode: 'assist',
        to_mode: 'autopilot',
        requested_by: 'ai',
        deadline_ms: 30_000,
      }),
    );
    takeOver.getState().takenOverChanged(true);
    await vi.advanceTimersByTimeAsync(0);
    expect(pending()).toHaveLength(1);
  });

  it('offers input allowed during the take-over at the hand back: Discard refuses it, Run runs it', async () => {
    const { controller, takeOver, client, answers, held, heldActions } =
      takenOverSetup('autopilot');
    takeOver.getState().takenOverChanged(true);
    controller.handle(call('c1', 'click_at', { x: 100, y: 200 }, 'allow', 20_000));
    await vi.advanceTimersByTimeAsync(2_000);
    expect(heldActions()).toEqual([]); // nothing offered while the person has the desktop
    takeOver.getState().takenOverChanged(false);
    await vi.advanceTimersByTimeAsync(300);
    expect(heldActions()).toMatchObject([
      { tool: 'click_at', details: { kind: 'click', x: 100, y: 200 } },
    ]);
    // Waiting for the answer runs nothing, however long it takes.
    await vi.advanceTimersByTimeAsync(5_000);
    expect(client.sent).toEqual([]);
    held.answer(heldActions()[0]?.id ?? '', false);
    await vi.advanceTimersByTimeAsync(0);
    expect(answers()).toEqual([
      {
        type: 'tool_error',
        id: 'c1',
        kind: 'permission_denied',
        message: expect.stringMatching(/The person discarded this click_at/) as string,
      },
    ]);
    expect(heldActions()).toEqual([]);

    takeOver.getState().takenOverChanged(true);
    controller.handle(call('c2', 'click_at', { x: 100, y: 200 }, 'allow', 20_000));
    await vi.advanceTimersByTimeAsync(1_000);
    takeOver.getState().takenOverChanged(false);
    await vi.advanceTimersByTimeAsync(300);
    held.answer(heldActions()[0]?.id ?? '', true);
    await vi.advanceTimersByTimeAsync(0);
    expect(client.sent).toEqual(CLICKED);
    const result = answers().at(-1);
    expect(result).toMatchObject({ type: 'tool_result', id: 'c2' });
    // The result says it waited for the person.
    expect(
      (result as { result: { waited_for_person_ms?: number } }).result.waited_for_person_ms,
    ).toBeGreaterThanOrEqual(1_000);
  });

  it('offers again what the person approved just before taking over', async () => {
    const { controller, takeOver, client, confirmations, pending, person, heldActions } =
      takenOverSetup('assist');
    controller.handle(call('c1', 'click_at', { x: 100, y: 200 }, 'confirm'));
    // The person was on the desktop a moment ago: the approved click waits for them to pause...
    person?.touched();
    confirmations.answer(pending()[0]?.id ?? '', true);
    await vi.advanceTimersByTimeAsync(100);
    // ...and they take over instead.
    takeOver.getState().takenOverChanged(true);
    await vi.advanceTimersByTimeAsync(5_000);
    takeOver.getState().takenOverChanged(false);
    await vi.advanceTimersByTimeAsync(1_500);
    expect(client.sent).toEqual([]);
    expect(heldActions()).toHaveLength(1);
  });

  it('refuses a held action nobody answered by its deadline, and drops it on Stop', async () => {
    const { controller, takeOver, client, answers, heldActions } = takenOverSetup('autopilot');
    takeOver.getState().takenOverChanged(true);
    controller.handle(call('c1', 'click_at', { x: 100, y: 200 }, 'allow', 10_000));
    await vi.advanceTimersByTimeAsync(1_000);
    takeOver.getState().takenOverChanged(false);
    await vi.advanceTimersByTimeAsync(10_000);
    expect(answers()).toMatchObject([
      {
        type: 'tool_error',
        id: 'c1',
        kind: 'permission_denied',
        message: expect.stringMatching(/did not choose Run before the call's deadline/) as string,
      },
    ]);
    expect(heldActions()).toEqual([]);

    takeOver.getState().takenOverChanged(true);
    controller.handle(call('c2', 'click_at', { x: 100, y: 200 }, 'allow', 10_000));
    await vi.advanceTimersByTimeAsync(1_000);
    takeOver.getState().takenOverChanged(false);
    await vi.advanceTimersByTimeAsync(300);
    expect(heldActions()).toHaveLength(1);
    controller.pressStop();
    await vi.advanceTimersByTimeAsync(0);
    expect(heldActions()).toEqual([]);
    // (The bridge tells the AI of the Stop; the viewer sends nothing more for it.)
    expect(answers().filter((m) => m.id === 'c2')).toEqual([]);
    expect(client.sent).toEqual([]);
  });

  it('runs nothing on Run when the mode was lowered to passive meanwhile', async () => {
    const { controller, takeOver, client, answers, held, heldActions } =
      takenOverSetup('autopilot');
    takeOver.getState().takenOverChanged(true);
    controller.handle(call('c1', 'click_at', { x: 100, y: 200 }, 'allow', 20_000));
    await vi.advanceTimersByTimeAsync(1_000);
    takeOver.getState().takenOverChanged(false);
    await vi.advanceTimersByTimeAsync(300);
    controller.handle(msg({ type: 'mode_changed', mode: 'passive' }));
    held.answer(heldActions()[0]?.id ?? '', true);
    await vi.advanceTimersByTimeAsync(0);
    expect(answers()).toMatchObject([{ id: 'c1', kind: 'permission_denied' }]);
    expect(client.sent).toEqual([]);
  });
});
