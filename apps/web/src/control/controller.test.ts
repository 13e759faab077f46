// ViewerController end to end inside the viewer, with the real stores, policy gate, overlay
// service and input handlers, and a recording FAKE Guacamole client at the edge
// (testing/controllerHarness.ts): synchronous overlay answers, confirmation → approve / deny /
// timeout / Stop, the viewer's own denial, mode approvals, version mismatch. Following the other
// windows' overlay store is overlaySync.test.ts.
import { PROTOCOL_VERSION, ProtocolError, parseBridgeMessage } from '@overlay-companion/protocol';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { onAiAction } from '../activity/aiActivity.js';
import { createDesktopStateStore } from '../store/desktopState.js';
import { createTakeOverStore } from '../takeover/personActivity.js';
import { call, hello, msg, setup } from './testing/controllerHarness.js';

describe('ViewerController', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it('answers draw_overlay synchronously, result first, then the broadcast', () => {
    const { controller, sent, overlayStore } = setup();
    controller.handle(hello('control'));
    controller.handle(
      call('c1', 'draw_overlay', { x: 10, y: 20, width: 30, height: 40, color: 'red' }),
    );
    // No timers or promises ran: the answer left inside handle().
    expect(overlayStore.getState().overlays).toHaveLength(1);
    // (The first message is the store it announced when it took control.)
    expect(sent.map((m) => m.type)).toEqual(['sync_state', 'overlay_created', 'tool_result']);
    expect(sent[2]).toEqual({
      type: 'tool_result',
      id: 'c1',
      result: {
        overlay_id: 'ov_1',
        bounds: { x: 10, y: 20, width: 30, height: 40 },
        monitor_index: 0,
      },
    });
  });

  it('waits for the first frame when called between the handshake and the desktop size', async () => {
    const screen: { size?: { width: number; height: number } } = {};
    let arrived: () => void = () => undefined;
    const { controller, sent } = setup({
      desktop: () => {
        if (screen.size === undefined) throw new ProtocolError('system_error', 'size unknown');
        return screen.size;
      },
      firstFrame: () =>
        screen.size === undefined ? new Promise<void>((resolve) => (arrived = resolve)) : undefined,
    });
    controller.handle(hello('control', 'autopilot'));
    controller.handle(call('c0', 'get_display_info', {}));
    await vi.advanceTimersByTimeAsync(0);
    expect(sent.filter((m) => m.type === 'tool_result' || m.type === 'tool_error')).toEqual([]);
    screen.size = { width: 1024, height: 768 };
    arrived();
    await vi.advanceTimersByTimeAsync(0);
    expect(sent.at(-1)).toMatchObject({
      type: 'tool_result',
      id: 'c0',
      result: { desktop: { width: 1024, height: 768 } },
    });
  });

  it('judges a call that waited for the first frame by the mode when it runs', async () => {
    let arrived: () => void = () => undefined;
    let waiting = true;
    const { controller, sent, client, pending } = setup({
      firstFrame: () => (waiting ? new Promise<void>((resolve) => (arrived = resolve)) : undefined),
    });
    controller.handle(hello('control', 'autopilot'));
    controller.handle(call('c1', 'click_at', { x: 5, y: 5 }, 'allow'));
    // The person lowers the mode while the call waits for the desktop.
    controller.handle(msg({ type: 'mode_changed', mode: 'assist' }));
    waiting = false;
    arrived();
    await vi.advanceTimersByTimeAsync(0);
    expect(pending()).toHaveLength(1); // asked, as assist requires
    expect(client.sent).toEqual([]);
    expect(sent.filter((m) => m.type === 'tool_result')).toEqual([]);
  });

  it('asks before clicking in assist mode, and clicks only after Approve', async () => {
    const { controller, sent, client, confirmations, pending } = setup();
    controller.handle(hello('control', 'assist'));
    controller.handle(call('c2', 'click_at', { x: 100, y: 200 }, 'confirm'));
    expect(pending()[0]?.details).toEqual({
      kind: 'click',
      x: 100,
      y: 200,
      button: 'left',
      clicks: 1,
    });
    expect(client.sent).toEqual([]);
    confirmations.answer(pending()[0]?.id ?? '', true);
    await vi.advanceTimersByTimeAsync(0);
    expect(client.sent).toEqual(['mouse,100,200,0', 'mouse,100,200,1', 'mouse,100,200,0']);
    expect(sent.at(-1)).toEqual({
      type: 'tool_result',
      id: 'c2',
      result: { success: true, was_confirmed: true },
    });
  });

  it('answers permission_denied on Deny and on timeout, sending no input', async () => {
    const { controller, sent, client, confirmations, pending } = setup();
    controller.handle(hello('control', 'assist'));
    controller.handle(call('c3', 'type_text', { text: 'secret' }, 'confirm'));
    confirmations.answer(pending()[0]?.id ?? '', false);
    await vi.advanceTimersByTimeAsync(0);
    expect(sent.at(-1)).toMatchObject({ type: 'tool_error', id: 'c3', kind: 'permission_denied' });
    controller.handle(call('c4', 'press_key', { keys: 'Return' }, 'confirm'));
    await vi.advanceTimersByTimeAsync(30_000);
    expect(sent.at(-1)).toMatchObject({ type: 'tool_error', id: 'c4', kind: 'permission_denied' });
    expect(client.sent).toEqual([]);
  });

  it('refuses input in passive mode even when the bridge said allow', () => {
    const { controller, sent, client, pending } = setup();
    controller.handle(hello('control', 'passive'));
    controller.handle(call('c5', 'click_at', { x: 1, y: 1 }, 'allow'));
    expect(pending()).toHaveLength(0);
    expect(sent.at(-1)).toMatchObject({ type: 'tool_error', id: 'c5', kind: 'permission_denied' });
    expect(client.sent).toEqual([]);
  });

  it('asks even when the bridge said allow if the mode here says confirm (not headless)', () => {
    const { controller, pending } = setup();
    controller.handle(hello('control', 'assist'));
    controller.handle(call('c6', 'mouse_move', { x: 1, y: 1 }, 'allow'));
    expect(pending()).toHaveLength(1);
  });

  it('runs without asking in the headless viewer when the bridge already got approval', async () => {
    const { controller, sent, pending } = setup();
    // Only the bridge says a window is headless (from its session), in hello.
    controller.handle(hello('control', 'assist', PROTOCOL_VERSION, true));
    controller.handle(call('c7', 'mouse_move', { x: 1, y: 1 }, 'allow'));
    expect(pending()).toHaveLength(0);
    await vi.advanceTimersByTimeAsync(0);
    expect(sent.at(-1)).toEqual({ type: 'tool_result', id: 'c7', result: { success: true } });
  });

  it('Stop denies the pending confirmation, cancels typing, and goes passive', async () => {
    const { controller, sent, client, control, pending, confirmations } = setup();
    controller.handle(hello('control', 'autopilot'));
    controller.handle(call('c8', 'type_text', { text: 'abcdefgh', typing_speed_wpm: 60 }, 'allow'));
    controller.handle(
      call('c9', 'click_at', { x: 1, y: 1, require_user_confirmation: true }, 'confirm'),
    );
    await vi.advanceTimersByTimeAsync(250);
    expect(client.sent.length).toBeGreaterThan(0);
    expect(pending()).toHaveLength(1);
    controller.pressStop();
    const typedSoFar = client.sent.length;
    await vi.advanceTimersByTimeAsync(5_000);
    expect(client.sent.length).toBe(typedSoFar);
    expect(pending()).toHaveLength(0);
    expect(confirmations.pendingCount).toBe(0);
    expect(controller.inflightCount).toBe(0);
    expect(control.getState().mode).toBe('passive');
    expect(sent.filter((m) => m.type === 'stop_pressed')).toHaveLength(1);
    // The bridge failed both calls itself when it got stop_pressed: no late answers.
    expect(sent.filter((m) => m.type === 'tool_result' || m.type === 'tool_error')).toEqual([]);
  });

  it('a Stop pressed while the link is down is delivered on reconnect, and wins over the old mode', () => {
    const link = { up: true };
    const { controller, sent, control } = setup({ link });
    controller.handle(hello('control', 'autopilot'));
    link.up = false;
    const stops = () => sent.filter((m) => m.type === 'stop_pressed');
    controller.pressStop();
    expect(stops()).toEqual([]);
    expect(control.getState().mode).toBe('passive');
    link.up = true;
    controller.handle(hello('control', 'autopilot'));
    expect(control.getState().mode).toBe('passive');
    expect(stops()).toEqual([{ type: 'stop_pressed' }]);
    // Delivered once: the next hello takes the bridge's mode again.
    controller.handle(hello('control', 'assist'));
    expect(control.getState().mode).toBe('assist');
    expect(stops()).toHaveLength(1);
  });

  it('drops a call the bridge cancelled', async () => {
    const { controller, sent, pending } = setup();
    controller.handle(hello('control', 'assist'));
    controller.handle(call('c10', 'click_at', { x: 1, y: 1 }, 'confirm'));
    controller.handle(msg({ type: 'tool_cancel', id: 'c10', reason: 'timeout' }));
    await vi.advanceTimersByTimeAsync(0);
    expect(pending()).toHaveLength(0);
    expect(sent.filter((m) => m.type !== 'sync_state')).toEqual([]);
  });

  it('never receives a tool the bridge runs itself: the message parser refuses it', () => {
    const parsed = parseBridgeMessage(
      JSON.stringify({
        type: 'tool_call',
        id: 'c11',
        name: 'get_events',
        args: {},
        policy: 'allow',
        deadline_ms: 1000,
      }),
    );
    expect(parsed.ok).toBe(false);
  });

  it('asks the person about a mode raise and answers the bridge', async () => {
    const { controller, sent, confirmations, pending } = setup();
    controller.handle(hello('control', 'passive'));
    controller.handle(
      msg({
        type: 'approval_request',
        request_id: 'r1',
        from_mode: 'passive',
        to_mode: 'autopilot',
        requested_by: 'ai',
        deadline_ms: 30_000,
      }),
    );
    expect(pending()[0]?.details).toEqual({
      kind: 'mode',
      from: 'passive',
      to: 'autopilot',
      metadata: undefined,
      requestedBy: 'ai',
    });
    confirmations.answer(pending()[0]?.id ?? '', true);
    await vi.advanceTimersByTimeAsync(0);
    expect(sent.at(-1)).toEqual({ type: 'approval', request_id: 'r1', approved: true });
  });

  it('as a mirror draws the AI actions the control window ran; the control window draws only its own', () => {
    const seen: unknown[] = [];
    const undo = onAiAction((details) => seen.push(details));
    try {
      const mirror = setup();
      mirror.controller.handle(hello('mirror'));
      const action = { kind: 'click', x: 1500, y: 300, button: 'left', clicks: 1 };
      mirror.controller.handle(msg({ type: 'ai_action', action }));
      expect(seen).toEqual([action]);
      const control = setup();
      control.controller.handle(hello('control'));
      control.controller.handle(msg({ type: 'ai_action', action }));
      expect(seen).toHaveLength(1);
    } finally {
      undo();
    }
  });

  it('follows a take over from any window, and tells the bridge of one made while the link was down', () => {
    const takeOver = createTakeOverStore();
    const { controller, sent } = setup({ takeOver });
    controller.handle(hello('control'));
    controller.handle(msg({ type: 'take_over', on: true }));
    expect(takeOver.getState()).toMatchObject({ takenOver: true, changedBy: 'bridge' });
    controller.handle(msg({ type: 'take_over', on: false }));
    expect(takeOver.getState().takenOver).toBe(false);
    // The person took over here while the bridge could not hear it: the next hello says so.
    takeOver.getState().takenOverChanged(true);
    sent.length = 0;
    controller.handle(hello('control'));
    expect(sent).toContainEqual({ type: 'take_over', on: true });
  });

  it('shows each desktop_state as it comes, in a mirror as in the control window', () => {
    const desktopState = createDesktopStateStore();
    const { controller } = setup({ desktopState });
    controller.handle(hello('mirror'));
    expect(desktopState.getState().people).toBeNull();
    const state = (inCharge: { id: string; name: string }, youInCharge: boolean) =>
      msg({
        type: 'desktop_state',
        desktop: { id: 'dsk_studio', name: 'Studio' },
        in_charge: inCharge,
        watchers: [{ ...inCharge, access: 'owner' }],
        more_watchers: 0,
        you: {
          access: 'admin',
          in_charge: youInCharge,
          may_take_charge: true,
          may_hand_over_to: [],
        },
      });
    controller.handle(state({ id: 'p_bob', name: 'Bob' }, false));
    expect(desktopState.getState().people).toMatchObject({
      desktop: { id: 'dsk_studio', name: 'Studio' },
      in_charge: { name: 'Bob' },
      you: { in_charge: false },
    });
    controller.handle(state({ id: 'p_ada', name: 'Ada' }, true));
    expect(desktopState.getState().people).toMatchObject({
      in_charge: { name: 'Ada' },
      you: { in_charge: true },
    });
    expect(desktopState.getState().people).not.toHaveProperty('type');
  });

  it('records the event interest, and forgets it on a new hello', () => {
    const { controller, control } = setup();
    controller.handle(hello('control'));
    expect(control.getState().eventInterest).toBeNull();
    controller.handle(msg({ type: 'event_interest', events: ['mouse_click'] }));
    expect(control.getState().eventInterest).toEqual(['mouse_click']);
    controller.handle(hello('control'));
    expect(control.getState().eventInterest).toBeNull();
  });

  it('gives up on a bridge with another protocol version', () => {
    const { controller, gaveUp, control } = setup();
    controller.handle(hello('control', 'assist', PROTOCOL_VERSION + 1));
    expect(gaveUp()).toMatch(/Reload the page/);
    expect(control.getState().role).toBeNull();
  });
});
