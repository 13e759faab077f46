// Settling an input call from its receipt rather than from the viewer's answer (CallRelay's
// part; packages/protocol's inputReceipt.ts has the protocol): per call with a receipt token,
// what the viewer said it will answer (input_sent) and whether a tunnel here answered the receipt
// delivered. Once both are in, the call settles with that answer — the viewer's own answer, which
// arrives a round trip later, is then expected and dropped (answeredLate). Everything else (a
// receipt lost or refused, no input_sent, a tunnel on another bridge) leaves the call to the
// viewer's answer, as without tokens.

/** Where tokens come from: this bridge's tunnels, for one desktop (tunnel/callReceipts.ts). */
export interface DesktopReceipts {
  /** A token for a call run by a window of `personId`; `delivered` runs at most once. */
  issue(personId: string, delivered: () => void): { readonly token: string; release(): void };
}

interface Open {
  viewerId: string | undefined;
  result: Record<string, unknown> | undefined;
  delivered: boolean;
  release: () => void;
}

/** Calls settled early remembered for their late answer; the oldest are forgotten beyond this. */
const REMEMBERED_SETTLED = 256;

export class EarlySettlement {
  private readonly waiting = new Map<string, Open>();
  /** Calls settled here → the viewer whose late answer is expected (oldest first). */
  private readonly settled = new Map<string, string>();

  constructor(private readonly settle: (id: string, result: Record<string, unknown>) => void) {}

  /** Takes a token for call `id`, run by a window of `personId`; returns it. */
  open(id: string, personId: string, receipts: DesktopReceipts): string {
    const issued = receipts.issue(personId, () => this.deliveredFor(id));
    this.waiting.set(id, {
      viewerId: undefined,
      result: undefined,
      delivered: false,
      release: () => issued.release(),
    });
    return issued.token;
  }

  /** The call ended (settled here or otherwise): its token is spent. */
  close(id: string): void {
    const entry = this.waiting.get(id);
    if (entry === undefined) return;
    this.waiting.delete(id);
    entry.release();
  }

  /**
   * `viewerId`, which holds call `id`, will answer `result` once its input is delivered. False
   * when the call has no token (nothing to wait for).
   */
  resultKnown(id: string, viewerId: string, result: Record<string, unknown>): boolean {
    const entry = this.waiting.get(id);
    if (entry === undefined) return false;
    entry.viewerId = viewerId;
    entry.result = result;
    if (entry.delivered) this.settleNow(id, entry);
    return true;
  }

  /**
   * Whether an answer from `viewerId` to call `id` is the one expected after it settled here;
   * `final` (tool_result / tool_error) is the last of them, after which it is forgotten.
   */
  answeredLate(viewerId: string, id: string, final = true): boolean {
    if (this.settled.get(id) !== viewerId) return false;
    if (final) this.settled.delete(id);
    return true;
  }

  private deliveredFor(id: string): void {
    const entry = this.waiting.get(id);
    if (entry === undefined) return;
    entry.delivered = true;
    if (entry.result !== undefined) this.settleNow(id, entry);
  }

  private settleNow(id: string, entry: Open): void {
    if (entry.viewerId === undefined || entry.result === undefined) return;
    this.settled.set(id, entry.viewerId);
    if (this.settled.size > REMEMBERED_SETTLED) {
      const oldest = this.settled.keys().next().value;
      if (oldest !== undefined) this.settled.delete(oldest);
    }
    this.settle(id, entry.result);
  }
}
