// Attention: our second extension of the Guacamole protocol between the bridge and our gateway
// (see delivery.ts for the first; guacd knows neither and never sees them). A browser that shows
// the desktop only at a glance says so, and the gateway sends it fewer frames: changes coalesce
// in between, so a glance costs a fraction of a full viewer's encoding and bytes. A `thumbnail`
// (a fleet tile nobody points at) glances too, and its picture is the screen scaled down at the
// gateway to fit THUMBNAIL_BOX, each frame what changed in it: one small image a second, encoded
// once for every tile of that desktop, instead of full-size changes that each tile's page would
// decode and scale itself.
// Leaving `thumbnail` brings the desktop's own size and every exact pixel back.
//
//   server → bridge, right after `ready`:  x-oc-attention              "I honour attention"
//   bridge → server:                       x-oc-attention,<level>      full | glance | thumbnail
//
// A user starts at `full`. The bridge passes the browser's word on only to a server that
// announced it.

export const ATTENTION_OPCODE = 'x-oc-attention';

export const ATTENTION_LEVELS = ['full', 'glance', 'thumbnail'] as const;
export type AttentionLevel = (typeof ATTENTION_LEVELS)[number];

/** The longest a glancing user waits between frames (a tile repaints once a second). */
export const GLANCE_FRAME_INTERVAL_MS = 1_000;

/**
 * The box a thumbnail's picture fits in (aspect kept, never enlarged): a little more than a fleet
 * tile's usual size (19rem and up; apps/web's TileDisplay.tsx announces the same 480×300), so a
 * tile is sharp at 1280 px and only slightly soft on a high-density screen, for a third of a
 * 640×400 picture's pixels to scale, encode and decode.
 */
export const THUMBNAIL_BOX = { width: 480, height: 300 } as const;

/** The size of a `width`×`height` desktop's thumbnail: scaled to fit THUMBNAIL_BOX. */
export function thumbnailSize(width: number, height: number): { width: number; height: number } {
  const scale = Math.min(1, THUMBNAIL_BOX.width / width, THUMBNAIL_BOX.height / height);
  return {
    width: Math.max(1, Math.round(width * scale)),
    height: Math.max(1, Math.round(height * scale)),
  };
}

/** The level an `x-oc-attention` instruction names, or undefined if malformed. */
export function attentionLevel(args: readonly string[]): AttentionLevel | undefined {
  const [level] = args;
  return args.length === 1 ? ATTENTION_LEVELS.find((l) => l === level) : undefined;
}
