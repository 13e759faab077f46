// The seed's /ws/overlays: a read-only broadcast of one person's overlays for other programs (a
// stream overlay, a second app), in the seed's message shapes — overlay_created with
// { id, x, y, width, height, color, opacity, monitor_index, created_at } (plus our extensions:
// label, click_through, expires_at, seq), overlay_removed { overlay_id }, clear_overlays — and
// the seed's planned request_sync / sync_state. A subscriber gets sync_state on connect and may
// send request_sync at any time; nothing it sends can change an overlay. Times are ISO 8601.
import { z } from 'zod';
import { Coordinate, CssColor, Id, Seq } from './common.js';
import { MAX_ERROR_MESSAGE_LENGTH } from './errors.js';
import { MAX_OVERLAYS, type Overlay } from './tools/overlay.js';
import { MonitorIndex } from './common.js';

export const OVERLAYS_SOCKET_PATH = '/ws/overlays';

const IsoTime = z.iso.datetime().describe('ISO 8601 time (UTC).');

/** One overlay as the seed shapes it. */
export const FeedOverlay = z.strictObject({
  id: Id.describe('The overlay id (overlay_id in the MCP tools).'),
  x: Coordinate.describe('Left edge, desktop pixels.'),
  y: Coordinate.describe('Top edge, desktop pixels.'),
  width: Coordinate.describe('Width, desktop pixels.'),
  height: Coordinate.describe('Height, desktop pixels.'),
  color: CssColor,
  opacity: z.number().min(0).max(1).describe('Fill opacity 0..1.'),
  monitor_index: MonitorIndex.describe("The monitor that holds the overlay's centre."),
  created_at: IsoTime,
  label: z.string().max(200).optional().describe('Text shown with the overlay (plain text).'),
  click_through: z.boolean().describe("Whether the person's clicks pass through it."),
  expires_at: IsoTime.optional().describe('When a temporary overlay goes away.'),
});
export type FeedOverlay = z.infer<typeof FeedOverlay>;

export const FeedMessage = z.discriminatedUnion('type', [
  z.strictObject({
    type: z.literal('sync_state'),
    seq: Seq,
    overlays: z.array(FeedOverlay).max(MAX_OVERLAYS),
  }),
  z.strictObject({ type: z.literal('overlay_created'), overlay: FeedOverlay, seq: Seq }),
  z.strictObject({ type: z.literal('overlay_removed'), overlay_id: Id, seq: Seq }),
  z.strictObject({ type: z.literal('clear_overlays'), seq: Seq }),
  z.strictObject({
    type: z.literal('error'),
    message: z.string().min(1).max(MAX_ERROR_MESSAGE_LENGTH),
  }),
]);
export type FeedMessage = z.infer<typeof FeedMessage>;

/** What a subscriber may send: only asking for the whole state again. */
export const FeedRequest = z.strictObject({ type: z.literal('request_sync') });

/** The seed's shape of one stored overlay. */
export function toFeedOverlay(overlay: Overlay): FeedOverlay {
  const b = overlay.bounds;
  return {
    id: overlay.overlay_id,
    x: b.x,
    y: b.y,
    width: b.width,
    height: b.height,
    color: overlay.color,
    opacity: overlay.opacity,
    monitor_index: overlay.monitor_index,
    created_at: new Date(overlay.created_at).toISOString(),
    ...(overlay.label === undefined ? {} : { label: overlay.label }),
    click_through: overlay.click_through,
    ...(overlay.expires_at === undefined
      ? {}
      : { expires_at: new Date(overlay.expires_at).toISOString() }),
  };
}
