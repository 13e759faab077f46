// Input receipts on one desktop tunnel (packages/protocol's inputReceipt.ts): after an AI's
// input, the viewer asks the bridge, on the same tunnel and so behind the input itself, whether
// it reached the desktop, and the tool call waits for the answer. No answer within
// INPUT_RECEIPT_DEADLINE_MS, an answer that it went nowhere, or the tunnel ending first, fails
// the call with an error the AI can act on: it never hears "ok" for input lost in a dead link.
import type Guacamole from 'guacamole-common-js';
import {
  INPUT_RECEIPT_DEADLINE_MS,
  INPUT_RECEIPT_OPCODE,
  InputReceiptAnswer,
  ProtocolError,
  receiptDelivered,
  type InputReceiptOutcome,
} from '@overlay-companion/protocol';

type ReceiptTunnel = Pick<Guacamole.Tunnel, 'sendMessage' | 'oninstruction'>;

interface Waiting {
  resolve(outcome: InputReceiptOutcome): void;
}

/** How long the AI is told to wait before retrying after a lost receipt (the viewer reconnects). */
const RETRY_AFTER_MS = 2_000;

export class InputReceipts {
  private next = 1;
  private readonly waiting = new Map<string, Waiting>();
  private ended = false;

  constructor(private readonly tunnel: ReceiptTunnel) {
    // guacamole-common-js's Client set oninstruction when it was made; answers are taken out
    // before it (it would ignore the unknown opcode anyway), everything else passes through.
    const client = tunnel.oninstruction;
    tunnel.oninstruction = (opcode, args) => {
      if (opcode === INPUT_RECEIPT_OPCODE) this.answered(args);
      else client?.(opcode, args);
    };
  }

  /**
   * Resolves once the bridge says the input sent before this call reached the desktop; throws a
   * ProtocolError saying what happened otherwise. Cancelling the call stops the wait.
   */
  async delivered(
    signal: AbortSignal,
    deadlineMs = INPUT_RECEIPT_DEADLINE_MS,
    token?: string,
  ): Promise<void> {
    const outcome = await this.request(signal, deadlineMs, token);
    if (receiptDelivered(outcome)) return;
    if (outcome === 'refused') {
      throw new ProtocolError(
        'permission_denied',
        'This window shows the desktop read-only (a view grant): its input never reaches the desktop.',
      );
    }
    throw new ProtocolError(
      'viewer_unavailable',
      'The desktop connection went away before the input reached the desktop; the viewer reconnects by itself. Take a screenshot once it is back to see the state, then repeat the action if needed.',
      RETRY_AFTER_MS,
    );
  }

  /** The tunnel is gone: nothing waiting will be answered. */
  end(): void {
    this.ended = true;
    for (const waiting of this.waiting.values()) waiting.resolve('lost');
    this.waiting.clear();
  }

  /** `token`: the bridge's receipt token for the call (tool_call.receipt), asked under instead of a number. */
  private request(
    signal: AbortSignal,
    deadlineMs: number,
    token: string | undefined,
  ): Promise<InputReceiptOutcome> {
    if (this.ended) return Promise.resolve('lost');
    const id = token ?? String(this.next);
    if (token === undefined) this.next = this.next >= 999_999_999 ? 1 : this.next + 1;
    return new Promise<InputReceiptOutcome>((resolve, reject) => {
      const done = (): void => {
        clearTimeout(timer);
        signal.removeEventListener('abort', aborted);
        this.waiting.delete(id);
      };
      const timer = setTimeout(() => {
        done();
        reject(
          new ProtocolError(
            'timeout',
            `The desktop did not confirm receiving the input within ${String(deadlineMs / 1000)} s: its link may have stalled. The input may still arrive when it recovers: wait retry_after_ms, take a screenshot to see whether it took effect, and only then repeat it.`,
            RETRY_AFTER_MS,
          ),
        );
      }, deadlineMs);
      const aborted = (): void => {
        done();
        reject(
          new ProtocolError('cancelled', 'The call was cancelled while its input was on its way.'),
        );
      };
      if (signal.aborted) {
        aborted();
        return;
      }
      signal.addEventListener('abort', aborted, { once: true });
      this.waiting.set(id, {
        resolve: (outcome) => {
          done();
          resolve(outcome);
        },
      });
      this.tunnel.sendMessage(INPUT_RECEIPT_OPCODE, id);
    });
  }

  private answered(args: unknown[]): void {
    const parsed = InputReceiptAnswer.safeParse(args);
    // A malformed answer is the bridge's bug: dropped, and the call's deadline reports it.
    if (!parsed.success) return;
    const [id, outcome] = parsed.data;
    this.waiting.get(id)?.resolve(outcome);
  }
}

const byClient = new WeakMap<Guacamole.Client, InputReceipts>();

/** Receipts for a client's tunnel; call right after making the Client on it. */
export function attachInputReceipts(client: Guacamole.Client, tunnel: ReceiptTunnel): void {
  byClient.set(client, new InputReceipts(tunnel));
}

/** The client's tunnel ended or was replaced: what waits on it is lost. */
export function endInputReceipts(client: Guacamole.Client): void {
  byClient.get(client)?.end();
}

/**
 * Waits until the input sent on `client` so far reached the desktop (asked under the call's
 * receipt `token` when the bridge gave one). A client without receipts
 * (one not made by the viewer's session) cannot tell: the call fails rather than guess.
 */
export function inputDelivered(
  client: Guacamole.Client,
  signal: AbortSignal,
  token?: string,
): Promise<void> {
  const receipts = byClient.get(client);
  if (receipts === undefined) {
    return Promise.reject(
      new ProtocolError(
        'system_error',
        'This desktop connection cannot confirm input; reload the viewer.',
      ),
    );
  }
  return receipts.delivered(signal, INPUT_RECEIPT_DEADLINE_MS, token);
}
