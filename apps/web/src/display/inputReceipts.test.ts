// Input receipts in the viewer, over a fake tunnel (named so: it records what is sent and lets the
// test answer as the bridge would; the real tunnel, bridge, gateway and Xvnc are exercised in the
// bridge's tunnel stall tests and the e2e input specs).
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { INPUT_RECEIPT_DEADLINE_MS, ProtocolError } from '@overlay-companion/protocol';
import { InputReceipts } from './inputReceipts.js';

function fakeTunnel() {
  const passedOn: Array<[string, unknown[]]> = [];
  const sent: unknown[][] = [];
  const tunnel = {
    sendMessage: (...elements: unknown[]) => void sent.push(elements),
    // What guacamole-common-js's Client installs: receives every instruction.
    oninstruction: ((opcode: string, args: unknown[]) => void passedOn.push([opcode, args])) as
      ((opcode: string, args: unknown[]) => void) | null,
  };
  const fromBridge = (opcode: string, ...args: string[]) => tunnel.oninstruction?.(opcode, args);
  return { tunnel, sent, passedOn, fromBridge };
}

async function failure(promise: Promise<unknown>): Promise<ProtocolError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!(error instanceof ProtocolError))
    throw new Error(`expected a ProtocolError, got ${String(error)}`);
  return error;
}

describe('InputReceipts', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it('asks behind the input and resolves on a delivered answer; other instructions pass through', async () => {
    const { tunnel, sent, passedOn, fromBridge } = fakeTunnel();
    const receipts = new InputReceipts(tunnel);
    const done = receipts.delivered(new AbortController().signal);
    expect(sent).toEqual([['oc-receipt', '1']]);
    fromBridge('sync', '123');
    fromBridge('oc-receipt', '1', 'desktop');
    await done;
    expect(passedOn).toEqual([['sync', ['123']]]);
  });

  it('fails with what happened for `lost` and `refused`', async () => {
    const { tunnel, fromBridge } = fakeTunnel();
    const receipts = new InputReceipts(tunnel);
    const lost = receipts.delivered(new AbortController().signal);
    const refused = receipts.delivered(new AbortController().signal);
    fromBridge('oc-receipt', '1', 'lost');
    fromBridge('oc-receipt', '2', 'refused');
    const l = await failure(lost);
    expect(l.kind).toBe('viewer_unavailable');
    expect(l.retryAfterMs).toBeGreaterThan(0);
    expect((await failure(refused)).kind).toBe('permission_denied');
  });

  it('times out with a retryable error when no answer comes (a stalled link)', async () => {
    const { tunnel, fromBridge } = fakeTunnel();
    const receipts = new InputReceipts(tunnel);
    const waiting = failure(receipts.delivered(new AbortController().signal));
    fromBridge('oc-receipt', '1', 'nonsense'); // malformed: ignored, not taken for a yes
    fromBridge('oc-receipt', '9', 'desktop'); // another receipt's answer
    await vi.advanceTimersByTimeAsync(INPUT_RECEIPT_DEADLINE_MS);
    const error = await waiting;
    expect(error.kind).toBe('timeout');
    expect(error.retryAfterMs).toBeGreaterThan(0);
    expect(error.message).toMatch(/screenshot/);
  });

  it('ends what waits when the tunnel goes, and a cancelled call stops waiting', async () => {
    const { tunnel } = fakeTunnel();
    const receipts = new InputReceipts(tunnel);
    const stop = new AbortController();
    const cancelled = failure(receipts.delivered(stop.signal));
    stop.abort();
    expect((await cancelled).kind).toBe('cancelled');
    const waiting = failure(receipts.delivered(new AbortController().signal));
    receipts.end();
    expect((await waiting).kind).toBe('viewer_unavailable');
    expect((await failure(receipts.delivered(new AbortController().signal))).kind).toBe(
      'viewer_unavailable',
    );
  });
});
