// Delivery confirmation: one of our extensions of the Guacamole protocol (attention.ts is the
// other), spoken only between the bridge and our gateway (Apache guacd does not know it, and
// never sees it: the bridge sends it only to a server that announced it). It lets the bridge
// learn that input it forwarded has reached the desktop server, not just the gateway —
// Guacamole itself never acknowledges input.
//
//   server → bridge, right after `ready`:  x-oc-delivery              "I confirm delivery"
//   bridge → server:                       x-oc-delivery,<n>          after some input
//   server → bridge:                       x-oc-delivery,<n>,<outcome>
//
// <n> is the bridge's own counter (decimal, at most 9 digits). The server answers in order,
// once everything this user sent before the request has reached the desktop server:
//   server   the desktop server confirmed it processed all of it (VNC: an RFB Fence round trip);
//   written  it went into the desktop server's socket, and that server cannot confirm more;
//   lost     there is no desktop connection (not yet, or no more).

export const DELIVERY_OPCODE = 'x-oc-delivery';

export const DELIVERY_OUTCOMES = ['server', 'written', 'lost'] as const;
export type DeliveryOutcome = (typeof DELIVERY_OUTCOMES)[number];

const DELIVERY_ID = /^\d{1,9}$/;

/** The request id of a `x-oc-delivery` instruction from the bridge, or undefined if malformed. */
export function deliveryRequestId(args: readonly string[]): string | undefined {
  const [id] = args;
  return args.length === 1 && id !== undefined && DELIVERY_ID.test(id) ? id : undefined;
}

/** A server's answer (`<n>,<outcome>`), or undefined if malformed. */
export function deliveryAnswer(
  args: readonly string[],
): { id: string; outcome: DeliveryOutcome } | undefined {
  const [id, outcome] = args;
  if (args.length !== 2 || id === undefined || !DELIVERY_ID.test(id)) return undefined;
  const known = DELIVERY_OUTCOMES.find((o) => o === outcome);
  return known === undefined ? undefined : { id, outcome: known };
}
