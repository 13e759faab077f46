// Attention: our second extension of the Guacamole protocol between the bridge and our gateway
// (see delivery.ts for the first; guacd knows neither and never sees them). A browser that shows
// the desktop only at a glance — a fleet tile — says so, and the gateway sends it fewer frames:
// changes coalesce in between, so a glance costs a fraction of a full viewer's encoding and bytes.
//
//   server → bridge, right after `ready`:  x-oc-attention              "I honour attention"
//   bridge → server:                       x-oc-attention,<level>      full | glance
//
// A user starts at `full`. The bridge passes the browser's word on only to a server that
// announced it.

export const ATTENTION_OPCODE = 'x-oc-attention';

export const ATTENTION_LEVELS = ['full', 'glance'] as const;
export type AttentionLevel = (typeof ATTENTION_LEVELS)[number];

/** The longest a glancing user waits between frames (a tile repaints once a second). */
export const GLANCE_FRAME_INTERVAL_MS = 1_000;

/** The level an `x-oc-attention` instruction names, or undefined if malformed. */
export function attentionLevel(args: readonly string[]): AttentionLevel | undefined {
  const [level] = args;
  return args.length === 1 ? ATTENTION_LEVELS.find((l) => l === level) : undefined;
}
