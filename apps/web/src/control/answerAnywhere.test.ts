// Answer anywhere in the viewer: the control window settles a question answered in another of
// the person's windows (approval_answer, relayed by the bridge) as if answered in its panel, and
// ignores answers for what it does not ask; a mirror never acts on one. When another window
// becomes the control window (hello as mirror), the questions and calls held here end at once.
// Real stores and controller, a recording FAKE Guacamole client (testing/controllerHarness.ts).
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { call, hello, setup } from './testing/controllerHarness.js';

describe('an answer from another window of the person', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it('settles the control window question it names: the click runs and the panel closes', async () => {
    const { controller, sent, client, pending } = setup();
    controller.handle(hello('control', 'assist'));
    controller.handle(call('c1', 'click_at', { x: 10, y: 20 }, 'confirm'));
    const id = pending()[0]?.id ?? '';
    expect(id).toMatch(/^confirm_[a-z0-9]+_1$/);
    controller.handle({ type: 'approval_answer', request_id: 'confirm_other_1', approved: true });
    expect(pending()).toHaveLength(1);
    expect(client.sent).toEqual([]);
    controller.handle({ type: 'approval_answer', request_id: id, approved: true });
    expect(pending()).toEqual([]);
    await vi.advanceTimersByTimeAsync(0);
    expect(client.sent).toEqual(['mouse,10,20,0', 'mouse,10,20,1', 'mouse,10,20,0']);
    expect(sent.at(-1)).toEqual({
      type: 'tool_result',
      id: 'c1',
      result: { success: true, was_confirmed: true },
    });
    // The first answer won: a late Deny for it changes nothing.
    controller.handle({ type: 'approval_answer', request_id: id, approved: false });
    expect(sent.filter((m) => m.type === 'tool_error')).toEqual([]);
  });

  it('a Deny from another window denies here, sending no input', async () => {
    const { controller, sent, client, pending } = setup();
    controller.handle(hello('control', 'assist'));
    controller.handle(call('c2', 'type_text', { text: 'secret' }, 'confirm'));
    controller.handle({
      type: 'approval_answer',
      request_id: pending()[0]?.id ?? '',
      approved: false,
    });
    await vi.advanceTimersByTimeAsync(0);
    expect(client.sent).toEqual([]);
    expect(sent.at(-1)).toMatchObject({ type: 'tool_error', id: 'c2', kind: 'permission_denied' });
  });

  it('becoming a mirror ends the questions held here at once', async () => {
    const { controller, sent, client, pending } = setup();
    controller.handle(hello('control', 'assist'));
    controller.handle(call('c3', 'click_at', { x: 1, y: 1 }, 'confirm'));
    expect(pending()).toHaveLength(1);
    controller.handle(hello('mirror', 'assist'));
    expect(pending()).toEqual([]);
    await vi.advanceTimersByTimeAsync(0);
    expect(client.sent).toEqual([]);
    // An answer relayed after that reaches nothing.
    controller.handle({ type: 'approval_answer', request_id: 'confirm_x_1', approved: true });
    expect(client.sent).toEqual([]);
    expect(sent.filter((m) => m.type === 'tool_result')).toEqual([]);
  });
});
