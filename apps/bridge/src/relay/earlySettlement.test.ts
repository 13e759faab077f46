// CallRelay settling input calls from their receipts (earlySettlement.ts), with the viewer as
// plain routes and a real CallReceipts as the tunnels' side (the whole path, with real tunnels,
// gateway, desktop, Chromium viewer and MCP client, is e2e/receiptSettled.spec.ts).
import { describe, expect, it } from 'vitest';
import {
  ProtocolError,
  defaultPermissions,
  parseBridgeMessage,
  type ToolCallMessage,
} from '@overlay-companion/protocol';
import { CallReceipts, type ReceiptTunnel } from '../tunnel/callReceipts.js';
import { CallRelay } from './callRelay.js';

const TUNNEL: ReceiptTunnel = {
  uuid: 't1',
  desktopId: 'desk',
  personId: 'alice',
  readOnly: false,
};

function relay(withReceipts = true) {
  const receipts = new CallReceipts();
  const sent: ToolCallMessage[] = [];
  const toViewer: string[] = [];
  const calls = new CallRelay({
    control: () => ({
      id: 'v1',
      personId: 'alice',
      send: (text) => {
        const parsed = parseBridgeMessage(text);
        if (parsed.ok && parsed.message.type === 'tool_call') sent.push(parsed.message);
      },
    }),
    toViewer: (_id, text) => toViewer.push(text),
    noViewer: () => new ProtocolError('viewer_unavailable', 'none'),
    noViewerGuidance: () => 'none',
    permissions: defaultPermissions,
    receipts: () => (withReceipts ? receipts.forDesktop('desk') : undefined),
  });
  /** The tunnel t1 asks and answers the receipt of the last call. */
  const tunnelAnswers = (outcome: 'desktop' | 'lost', tunnel = TUNNEL) => {
    const token = sent.at(-1)?.receipt ?? '';
    receipts.asked(token, tunnel);
    receipts.answered(token, tunnel, outcome);
  };
  return { calls, receipts, sent, toViewer, tunnelAnswers };
}

const move = { x: 5, y: 6 };
const options = { timeoutMs: 5_000 };

describe('CallRelay with receipt tokens', () => {
  it('an input call settles with the announced answer once its receipt is delivered', async () => {
    const { calls, sent, receipts, tunnelAnswers } = relay();
    const answer = calls.call('mouse_move', move, 'allow', options);
    const call = sent[0];
    expect(call?.receipt).toMatch(/^r[0-9a-f]{32}$/);
    expect(
      calls.inputSent('v1', { type: 'input_sent', id: call?.id ?? '', result: { success: true } }),
    ).toBeUndefined();
    tunnelAnswers('desktop');
    await expect(answer).resolves.toEqual({ success: true });
    // The viewer's own answer, a round trip later, is expected: dropped without an error.
    expect(
      calls.settleCall('v1', {
        type: 'tool_result',
        id: call?.id ?? '',
        result: { success: true },
      }),
    ).toBeUndefined();
    // ...once: a second one is an answer to a finished call again.
    expect(
      calls.settleCall('v1', {
        type: 'tool_result',
        id: call?.id ?? '',
        result: { success: true },
      }),
    ).toMatch(/unknown or finished/);
    expect(receipts.size).toBe(0);
  });

  it('the receipt may come first: the call settles when the announced answer arrives', async () => {
    const { calls, sent, tunnelAnswers } = relay();
    const click = {
      x: 1,
      y: 2,
      button: 'left',
      clicks: 1,
      require_user_confirmation: false,
    } as const;
    const answer = calls.call('click_at', click, 'confirm', options);
    tunnelAnswers('desktop');
    const result = { success: true, was_confirmed: true, waited_for_person_ms: 40 };
    calls.inputSent('v1', { type: 'input_sent', id: sent[0]?.id ?? '', result });
    await expect(answer).resolves.toEqual(result);
  });

  it('a lost receipt leaves the call to the viewer, whose error settles it', async () => {
    const { calls, sent, tunnelAnswers } = relay();
    const answer = calls.call('mouse_move', move, 'allow', options);
    const id = sent[0]?.id ?? '';
    calls.inputSent('v1', { type: 'input_sent', id, result: { success: true } });
    tunnelAnswers('lost');
    let settled = false;
    void answer.then(
      () => (settled = true),
      () => (settled = true),
    );
    await Promise.resolve();
    expect(settled).toBe(false);
    calls.settleCall('v1', {
      type: 'tool_error',
      id,
      kind: 'viewer_unavailable',
      message: 'The desktop connection went away.',
    });
    await expect(answer).rejects.toMatchObject({ kind: 'viewer_unavailable' });
  });

  it("another person's tunnel answering the token settles nothing; the viewer's answer does", async () => {
    const { calls, sent, tunnelAnswers } = relay();
    const answer = calls.call('mouse_move', move, 'allow', options);
    const id = sent[0]?.id ?? '';
    calls.inputSent('v1', { type: 'input_sent', id, result: { success: true } });
    tunnelAnswers('desktop', { ...TUNNEL, uuid: 't2', personId: 'mallory' });
    tunnelAnswers('desktop', { ...TUNNEL, uuid: 't3', readOnly: true });
    calls.settleCall('v1', { type: 'tool_result', id, result: { success: true, from: 'viewer' } });
    // The viewer's own (final) answer settled it, not the announced one.
    await expect(answer).rejects.toMatchObject({ kind: 'system_error' });
  });

  it('input_sent from a window that does not hold the call is refused and settles nothing', async () => {
    const { calls, sent, tunnelAnswers } = relay();
    const answer = calls.call('mouse_move', move, 'allow', options);
    const id = sent[0]?.id ?? '';
    expect(calls.inputSent('v2', { type: 'input_sent', id, result: { success: true } })).toMatch(
      /unknown or finished/,
    );
    tunnelAnswers('desktop');
    calls.rejectAll(() => new ProtocolError('cancelled', 'Stopped.'));
    await expect(answer).rejects.toMatchObject({ kind: 'cancelled' });
  });

  it('no token for tools without input, nor when no tunnel here answers receipts', () => {
    const { calls, sent } = relay();
    void calls.call('get_display_info', {}, 'allow', options).catch(() => undefined);
    expect(sent[0]?.receipt).toBeUndefined();
    expect(
      calls.inputSent('v1', { type: 'input_sent', id: sent[0]?.id ?? '', result: {} }),
    ).toMatch(/no receipt token/);
    const none = relay(false);
    void none.calls.call('mouse_move', move, 'allow', options).catch(() => undefined);
    expect(none.sent[0]?.receipt).toBeUndefined();
    calls.rejectAll(() => new ProtocolError('cancelled', 'done'));
    none.calls.rejectAll(() => new ProtocolError('cancelled', 'done'));
  });

  it('a call that ends otherwise (timeout, Stop, cancel) spends its token', async () => {
    const { calls, sent, receipts, tunnelAnswers } = relay();
    const answer = calls.call('mouse_move', move, 'allow', options);
    expect(receipts.size).toBe(1);
    calls.rejectAll(() => new ProtocolError('cancelled', 'Stopped.'));
    await expect(answer).rejects.toMatchObject({ kind: 'cancelled' });
    expect(receipts.size).toBe(0);
    // A late input_sent and receipt for it change nothing.
    calls.inputSent('v1', { type: 'input_sent', id: sent[0]?.id ?? '', result: { success: true } });
    tunnelAnswers('desktop');
  });
});
