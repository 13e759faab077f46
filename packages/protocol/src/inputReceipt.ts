// Input receipts: how the viewer learns that the input it sent for an AI's tool call reached the
// desktop, so the call reports ok only then (and an input lost in a stalled link is an error,
// not a success that lands twelve seconds later). Spoken on the desktop tunnel between the
// viewer and the bridge, as Guacamole instructions, in order with the input itself:
//
//   viewer → bridge:  oc-receipt,<id>             after the call's mouse and key instructions
//   bridge → viewer:  oc-receipt,<id>,<outcome>
//
// The bridge never forwards it to the desktop's server; it answers from what it can know
// (apps/bridge/src/tunnel/inputReceipts.ts).
//
// A tool call the bridge relays with a `receipt` token (tool_call.receipt) is asked under that
// token instead of the viewer's counter, and the viewer tells the bridge at once, on the control
// socket, what it will answer once the input is delivered (`input_sent`). The bridge that holds
// both the call and the tunnel then settles the call itself when the receipt is answered
// delivered, without waiting for the viewer to hear the answer and answer in turn
// (apps/bridge/src/tunnel/callReceipts.ts). The token is random, bound to the one call, and only
// counts on a tunnel of the person whose window runs the call, to the call's desktop, that may
// send input; anything else (lost, refused, another bridge) leaves the viewer's own answer to
// settle the call, as before.
import { z } from 'zod';
import { Id } from './common.js';
import { QUICK_CALL_MS } from './tools/define.js';

export const INPUT_RECEIPT_OPCODE = 'oc-receipt';

/** A receipt id the viewer picks: its own counter. */
export const ViewerReceiptId = z.string().regex(/^\d{1,9}$/);

/** A receipt token the bridge picks for one call: 128 random bits, never a counter's digits. */
export const CallReceiptToken = z.string().regex(/^r[0-9a-f]{32}$/);

/** A receipt's id on the tunnel: the viewer's counter or the bridge's token for a call. */
export const InputReceiptId = z.union([ViewerReceiptId, CallReceiptToken]);

/**
 * viewer → bridge: the input of call `id` left on the desktop tunnel behind its receipt token;
 * `result` is the viewer's answer once that receipt is delivered (the bridge may settle the call
 * with it then). The viewer still answers tool_result / tool_error after the receipt, as always.
 */
export const InputSentMessage = z.strictObject({
  type: z.literal('input_sent'),
  id: Id.describe('The tool call id (tool_call.id).'),
  result: z.record(z.string(), z.unknown()),
});

export const InputReceiptOutcome = z.enum([
  /** The desktop server confirmed it processed the input (our gateway: an RFB fence). */
  'desktop',
  /**
   * The server in between (Apache guacd) has it, and the desktop answered after it was sent (a
   * frame, or the bridge's probe of the desktop server): guacd itself never acknowledges input.
   */
  'link',
  /** Forwarded; the bridge has no way to check further for this desktop. */
  'sent',
  /** This window may not send input (a view grant): nothing was sent. */
  'refused',
  /** No desktop connection (not yet, or no more): the input went nowhere. */
  'lost',
]);
export type InputReceiptOutcome = z.infer<typeof InputReceiptOutcome>;

/** The arguments of the bridge's answer. */
export const InputReceiptAnswer = z.tuple([InputReceiptId, InputReceiptOutcome]);

/** Outcomes after which a tool call may say its input reached the desktop. */
export function receiptDelivered(outcome: InputReceiptOutcome): boolean {
  return outcome === 'desktop' || outcome === 'link' || outcome === 'sent';
}

/**
 * How long the viewer waits for a receipt before failing the call: inside every input tool's
 * budget (QUICK_CALL_MS on top of its own pacing), so the AI hears what happened — the desktop
 * did not confirm the input — rather than the bridge's generic "the viewer did not answer".
 * A live desktop confirms within milliseconds; the gateway gives up on a silent one after ~6 s.
 */
export const INPUT_RECEIPT_DEADLINE_MS = QUICK_CALL_MS - 1_000;
