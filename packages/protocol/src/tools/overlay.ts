// Overlay tools (draw_overlay, remove_overlay, clear_overlays, batch_overlay) and the Overlay
// record the viewers keep in their stores and exchange in overlay_* / sync_state messages.
import { z } from 'zod';
import { Bounds, Coordinate, CssColor, Id, MonitorIndex, Size } from '../common.js';
import { defineTool } from './define.js';

export const OverlayId = Id.describe('Overlay id returned by draw_overlay or batch_overlay.');

export const DrawOverlayInput = z.strictObject({
  x: Coordinate.describe('Left edge in pixels (desktop, or monitor-relative with monitor_index).'),
  y: Coordinate.describe('Top edge in pixels (desktop, or monitor-relative with monitor_index).'),
  width: Size.describe('Width in pixels.'),
  height: Size.describe('Height in pixels.'),
  color: CssColor,
  opacity: z
    .number()
    .min(0)
    .max(1)
    .default(0.5)
    .describe('Fill opacity from 0 (invisible) to 1 (solid). Default 0.5.'),
  label: z
    .string()
    .max(200)
    .optional()
    .describe('Optional text shown on the overlay for the person, up to 200 characters.'),
  temporary_ms: z
    .int()
    .min(100)
    .max(600_000)
    .optional()
    .describe('Remove the overlay automatically after this many milliseconds (100..600000).'),
  click_through: z
    .boolean()
    .default(true)
    .describe(
      "When true (default) the person's clicks pass through to the desktop underneath; false makes the overlay catch them.",
    ),
  monitor_index: MonitorIndex.optional(),
});
export type DrawOverlayInput = z.input<typeof DrawOverlayInput>;
export type DrawOverlayArgs = z.output<typeof DrawOverlayInput>;

/** One overlay as stored by every viewer window; bounds are absolute desktop pixels. */
export const Overlay = z.strictObject({
  overlay_id: OverlayId,
  bounds: Bounds.describe('Where the overlay is, in desktop pixels, clamped to the desktop.'),
  color: CssColor,
  opacity: z.number().min(0).max(1).describe('Fill opacity 0..1.'),
  label: z.string().max(200).optional().describe('Text shown on the overlay.'),
  click_through: z.boolean().describe("Whether the person's clicks pass through."),
  monitor_index: MonitorIndex.nullable().describe(
    'Monitor the overlay was placed on, or null when it was placed in desktop coordinates.',
  ),
});
export type Overlay = z.infer<typeof Overlay>;

export const DrawOverlayResult = z.strictObject({
  overlay_id: OverlayId,
  bounds: Bounds.describe(
    'Final rectangle in desktop pixels after clamping to the desktop (width/height 0 if it fell entirely outside).',
  ),
  monitor_index: MonitorIndex.nullable().describe('Monitor used, or null for desktop coordinates.'),
});

export const drawOverlay = defineTool({
  name: 'draw_overlay',
  title: 'Draw overlay',
  description:
    "Draws a colored, semi-transparent rectangle over the remote desktop in the person's viewer, to point something out (a button to press, a field to fill). It is only drawn in the viewer: the remote desktop and its screenshots are unaffected unless take_screenshot is asked to include overlays. Units are desktop pixels (see get_display_info); with monitor_index, x/y are relative to that monitor. The rectangle is clamped to the desktop. Returns the overlay_id (for remove_overlay) and the clamped bounds.",
  input: DrawOverlayInput,
  result: DrawOverlayResult,
  annotations: { readOnlyHint: false, destructiveHint: false, openWorldHint: false },
  kind: 'overlay',
  needsInputPolicy: false,
});

export const RemoveOverlayInput = z.strictObject({ overlay_id: OverlayId });
export const RemoveOverlayResult = z.strictObject({
  removed: z.boolean().describe('True when an overlay was removed.'),
  not_found: z
    .boolean()
    .describe('True when no overlay had this id (already removed or expired); not an error.'),
});

export const removeOverlay = defineTool({
  name: 'remove_overlay',
  title: 'Remove overlay',
  description:
    'Removes one overlay drawn earlier by draw_overlay or batch_overlay. Removing an id that no longer exists (for example a temporary overlay that expired) is not an error: it returns removed=false, not_found=true.',
  input: RemoveOverlayInput,
  result: RemoveOverlayResult,
  annotations: {
    readOnlyHint: false,
    destructiveHint: true,
    idempotentHint: true,
    openWorldHint: false,
  },
  kind: 'overlay',
  needsInputPolicy: false,
});

export const ClearOverlaysInput = z.strictObject({});
export const ClearOverlaysResult = z.strictObject({
  cleared: z.int().min(0).describe('How many overlays were removed.'),
});

export const clearOverlays = defineTool({
  name: 'clear_overlays',
  title: 'Clear overlays',
  description:
    'Removes every overlay from the viewer. Use it before starting a new explanation so old highlights do not confuse the person. Returns how many were removed.',
  input: ClearOverlaysInput,
  result: ClearOverlaysResult,
  annotations: {
    readOnlyHint: false,
    destructiveHint: true,
    idempotentHint: true,
    openWorldHint: false,
  },
  kind: 'overlay',
  needsInputPolicy: false,
});

export const MAX_BATCH_OVERLAYS = 100;

/** How long each overlay of a one_at_a_time batch is shown when it has no temporary_ms. */
export const ONE_AT_A_TIME_STEP_MS = 1_500;

/** How long a one_at_a_time batch takes: every overlay but the last is shown for its step. */
export function oneAtATimeDurationMs(
  overlays: readonly { temporary_ms?: number | undefined }[],
): number {
  return overlays
    .slice(0, -1)
    .reduce((sum, o) => sum + (o.temporary_ms ?? ONE_AT_A_TIME_STEP_MS), 0);
}

export const BatchOverlayInput = z.strictObject({
  overlays: z
    .array(DrawOverlayInput)
    .min(1)
    .max(MAX_BATCH_OVERLAYS)
    .describe('1 to 100 overlays, each with the same fields as draw_overlay.'),
  one_at_a_time: z
    .boolean()
    .default(false)
    .describe(
      `false (default): all overlays appear in one update. true: a walk-through — they are shown one after another in list order, each replacing the previous one after its temporary_ms (or ${ONE_AT_A_TIME_STEP_MS} ms without one); the last one stays (until its own temporary_ms, if any). The call returns when the last is shown; overlay_ids lists them all.`,
    ),
});
export const BatchOverlayResult = z.strictObject({
  overlay_ids: z.array(OverlayId).max(MAX_BATCH_OVERLAYS).describe('Ids in the order given.'),
});

export const batchOverlay = defineTool({
  name: 'batch_overlay',
  title: 'Draw several overlays',
  description:
    'Draws up to 100 overlays in one call; cheaper than many draw_overlay calls when highlighting several places. Each entry takes the draw_overlay fields (desktop pixels, or monitor-relative with monitor_index). Returns the new overlay ids in the order given.',
  input: BatchOverlayInput,
  result: BatchOverlayResult,
  annotations: { readOnlyHint: false, destructiveHint: false, openWorldHint: false },
  kind: 'overlay',
  needsInputPolicy: false,
});
