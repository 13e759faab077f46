// The bridge's side of input receipts (packages/protocol's inputReceipt.ts) for one tunnel: the
// browser asks, behind its input, whether that input reached the desktop, and gets the strongest
// answer the bridge can give —
//   our gateway (it announced delivery confirmation, packages/guac's delivery.ts): the request is
//     passed on behind the input and the gateway answers once the VNC server confirmed it;
//   Apache guacd, which acknowledges no input: the input went to guacd, and the desktop must then
//     show life after it — a probe of the desktop server begun after it answers, or it still
//     draws a second later (LinkWatch.vouch); a stalled link answers `lost`;
//   no way to check (no probe target): `sent`.
// A window with a view grant sends the desktop no input, so its receipts say `refused`.
import { DELIVERY_OPCODE, deliveryAnswer, type DeliveryOutcome } from '@overlay-companion/guac';
import { InputReceiptId, type InputReceiptOutcome } from '@overlay-companion/protocol';

/** Receipts one browser may have open at once; more are answered `lost` at once. */
export const MAX_OPEN_RECEIPTS = 64;

export interface InputReceiptDeps {
  readOnly: boolean;
  /** Sends the browser `oc-receipt,<id>,<outcome>`. */
  answer(id: string, outcome: InputReceiptOutcome): void;
  /** True while the tunnel relays to a desktop connection (input sent now goes somewhere). */
  connected(): boolean;
  /** Sends the server an instruction behind the input; false when there is no connection. */
  sendUpstream(opcode: string, ...args: string[]): boolean;
  /** Evidence the desktop answered after now (LinkWatch.vouch); undefined: none to be had. */
  vouch(): Promise<boolean> | undefined;
}

export class InputReceiptDesk {
  /** The server said it confirms delivery (only our gateway does). */
  private serverConfirms = false;
  private next = 1;
  /** The bridge's request number upstream → the browser's receipt id. */
  private readonly upstream = new Map<string, string>();
  /** Receipts waiting for the desktop to show life (checkLink). */
  private readonly checking = new Set<string>();
  private ended = false;

  constructor(private readonly deps: InputReceiptDeps) {}

  /** Receipts asked and not yet answered: waiting on the server or on the link. */
  private get openReceipts(): number {
    return this.upstream.size + this.checking.size;
  }

  /** A browser's `oc-receipt`. False when its arguments are malformed (the caller ends the tunnel). */
  request(args: readonly string[]): boolean {
    const parsed = InputReceiptId.safeParse(args[0]);
    if (args.length !== 1 || !parsed.success) return false;
    const id = parsed.data;
    if (this.deps.readOnly) this.deps.answer(id, 'refused');
    else if (this.ended || !this.deps.connected() || this.openReceipts >= MAX_OPEN_RECEIPTS)
      this.deps.answer(id, 'lost');
    else if (this.serverConfirms) this.askServer(id);
    else this.checkLink(id);
    return true;
  }

  /** An upstream `x-oc-delivery`: the announcement (no arguments) or an answer. */
  fromServer(args: readonly string[]): { confirmedByServer: boolean } {
    if (args.length === 0) {
      this.serverConfirms = true;
      return { confirmedByServer: false };
    }
    const answer = deliveryAnswer(args);
    const id = answer === undefined ? undefined : this.upstream.get(answer.id);
    if (answer === undefined || id === undefined) return { confirmedByServer: false };
    this.upstream.delete(answer.id);
    this.settleFromServer(id, answer.outcome);
    return { confirmedByServer: answer.outcome === 'server' };
  }

  /** The tunnel ended: every open receipt is lost (the browser's tunnel closes too). */
  end(): void {
    if (this.ended) return;
    this.ended = true;
    for (const id of [...this.upstream.values(), ...this.checking]) this.deps.answer(id, 'lost');
    this.upstream.clear();
    this.checking.clear();
  }

  private askServer(id: string): void {
    const n = String(this.next);
    this.next = this.next >= 999_999_999 ? 1 : this.next + 1;
    if (!this.deps.sendUpstream(DELIVERY_OPCODE, n)) {
      this.deps.answer(id, 'lost');
      return;
    }
    this.upstream.set(n, id);
  }

  private settleFromServer(id: string, outcome: DeliveryOutcome): void {
    if (outcome === 'server') this.deps.answer(id, 'desktop');
    else if (outcome === 'written') this.checkLink(id);
    else this.deps.answer(id, 'lost');
  }

  private checkLink(id: string): void {
    const alive = this.deps.vouch();
    if (alive === undefined) {
      this.deps.answer(id, 'sent');
      return;
    }
    this.checking.add(id);
    alive.then(
      (alive) => this.settleChecked(id, alive ? 'link' : 'lost'),
      () => this.settleChecked(id, 'lost'),
    );
  }

  private settleChecked(id: string, outcome: InputReceiptOutcome): void {
    if (!this.checking.delete(id)) return; // answered already (the tunnel ended)
    this.deps.answer(id, outcome);
  }
}
