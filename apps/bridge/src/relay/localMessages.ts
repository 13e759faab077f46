// Viewer⇄bridge messages the control plane needs that @overlay-companion/protocol does not define
// yet. Kept here, parsed with zod like every other wire message, until they move into
// packages/protocol/src/messages.ts (listed in the control-plane report):
//   viewer → bridge  mode_set    {type, mode, metadata?}      the person picks a mode in the viewer
//   viewer → bridge  sync_state  {type, seq, overlays}        control viewer answers a request_sync
//   bridge → viewer  request_sync {type}                      forwarded from a mirror to the control viewer
import { z } from 'zod';
import { MAX_OVERLAYS, Mode, ModeMetadata, Overlay, Seq } from '@overlay-companion/protocol';

export const ModeSetMessage = z.strictObject({
  type: z.literal('mode_set'),
  mode: Mode,
  metadata: ModeMetadata.optional(),
});
export type ModeSetMessage = z.infer<typeof ModeSetMessage>;

export const SyncStateFromViewer = z.strictObject({
  type: z.literal('sync_state'),
  seq: Seq,
  overlays: z.array(Overlay).max(MAX_OVERLAYS),
});
export type SyncStateFromViewer = z.infer<typeof SyncStateFromViewer>;

export type LocalViewerMessage = ModeSetMessage | SyncStateFromViewer;

/** Types handled here; everything else goes to the protocol's parseViewerMessage. */
export const LOCAL_VIEWER_TYPES: ReadonlyMap<string, z.ZodType<LocalViewerMessage>> = new Map<
  string,
  z.ZodType<LocalViewerMessage>
>([
  ['mode_set', ModeSetMessage],
  ['sync_state', SyncStateFromViewer],
]);

/** bridge → control viewer: "a mirror wants the overlay store; answer with sync_state". */
export const REQUEST_SYNC_FOR_CONTROL = JSON.stringify({ type: 'request_sync' });
