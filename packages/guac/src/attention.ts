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
//
// A passive watcher (the bridge's recorder) only records: it takes the frames the viewers' shared
// stream makes and never makes the server encode frames for it alone, except at a slow pace
// when nobody views (PASSIVE_FRAME_INTERVAL_MS). It only ever changes that user's own frames.
// The bridge's recorder sends it, only to a server that announced attention (guacd never):
//
//   bridge → server:                       x-oc-passive                "I only record"

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

export const PASSIVE_OPCODE = 'x-oc-passive';

/**
 * The longest a passive watcher with nobody else to follow waits between frames: nobody sees
 * its frames live (the AI's tools run in a viewer at full attention, which it would follow), so
 * the recording needs the screen's states a second apart, like a fleet tile, and its last frame
 * still equals the screen (a still screen is caught up within this).
 */
export const PASSIVE_FRAME_INTERVAL_MS = GLANCE_FRAME_INTERVAL_MS;

/** True for a well-formed `x-oc-passive` instruction's arguments (it takes none). */
export function isPassiveRequest(args: readonly string[]): boolean {
  return args.length === 0;
}

/** The level an `x-oc-attention` instruction names, or undefined if malformed. */
export function attentionLevel(args: readonly string[]): AttentionLevel | undefined {
  const [level] = args;
  return args.length === 1 ? ATTENTION_LEVELS.find((l) => l === level) : undefined;
}
