// Overlay tools (draw_overlay, remove_overlay, clear_overlays, batch_overlay) and the Overlay
// record the viewers keep in their stores and exchange in overlay_* / sync_state messages.
// Run by the person's control viewer, whose overlay store is authoritative; never governed by
// the mode.
import { z } from 'zod';
import {
  Bounds,
  CssColor,
  EpochMs,
  Id,
  InputCoordinate,
  InputSize,
  MonitorIndex,
} from '../common.js';
import { QUICK_CALL_MS, defineTool } from './define.js';
import { plainText } from './textArgs.js';

export const OverlayId = Id.describe('Overlay id returned by draw_overlay or batch_overlay.');

/** An overlay's label: the AI's words drawn on the desktop for the person. */
const OverlayLabel = plainText(z.string().max(200), "the AI's own words, drawn for the person");

/** The seed's default overlay color. */
export const DEFAULT_OVERLAY_COLOR = 'red';

export const DrawOverlayInput = z.strictObject({
  x: InputCoordinate.describe(
    'Left edge in pixels (desktop, or monitor-relative with monitor_index); fractions are rounded to the nearest pixel.',
  ),
  y: InputCoordinate.describe(
    'Top edge in pixels (desktop, or monitor-relative with monitor_index); fractions are rounded.',
  ),
  width: InputSize.describe('Width in pixels (rounded to the nearest pixel, at least 1).'),
  height: InputSize.describe('Height in pixels (rounded to the nearest pixel, at least 1).'),
  color: CssColor.default(DEFAULT_OVERLAY_COLOR).describe(
    'Fill color: a CSS color name (e.g. "red", "gold", "cornflowerblue") or hex #rgb, #rrggbb, #rrggbbaa. Default "red".',
  ),
  opacity: z
    .number()
    .min(0)
    .max(1)
    .default(0.5)
    .describe('Fill opacity from 0 (invisible) to 1 (solid). Default 0.5.'),
  label: OverlayLabel.optional().describe(
    'Optional text shown on the overlay for the person, up to 200 characters.',
  ),
  temporary_ms: z
    .number()
    .min(100)
    .max(600_000)
    .transform(Math.round)
    .optional()
    .describe('Remove the overlay automatically after this many milliseconds (100..600000).'),
  click_through: z
    .boolean()
    .default(true)
    .describe(
      "When true (default) the person's clicks pass through to the desktop underneath. false makes it an interactive overlay: it catches the person's clicks instead of the desktop, and each is reported as a mouse_click event with this overlay_id (subscribe_events).",
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
  label: OverlayLabel.optional().describe('Text shown on the overlay.'),
  click_through: z.boolean().describe("Whether the person's clicks pass through."),
  monitor_index: MonitorIndex.describe("The monitor that holds the overlay's centre."),
  created_at: EpochMs.describe('When it was drawn, epoch milliseconds (control viewer clock).'),
  expires_at: EpochMs.optional().describe(
    'When a temporary overlay goes away, epoch milliseconds; a window that takes over control re-arms it.',
  ),
});
export type Overlay = z.infer<typeof Overlay>;

export const DrawOverlayResult = z.strictObject({
  overlay_id: OverlayId,
  bounds: Bounds.describe(
    'Final rectangle in desktop pixels after clamping to the desktop (width/height 0 if it fell entirely outside).',
  ),
  monitor_index: MonitorIndex.describe(
    "The monitor that holds the overlay's centre (get_display_info).",
  ),
});

export const drawOverlay = defineTool({
  name: 'draw_overlay',
  title: 'Draw overlay',
  description:
    "Draws a colored, semi-transparent rectangle over the remote desktop in every viewer window of the person, to point something out (a button to press, a field to fill). It is only drawn in the viewer: the remote desktop and its screenshots are unaffected unless take_screenshot is asked to include overlays. Units are desktop pixels (see get_display_info; fractions are rounded to the nearest pixel); with monitor_index, x/y are relative to that monitor. The rectangle is clamped to the desktop. click_through=false makes it catch the person's clicks (reported as mouse_click events with its overlay_id). Returns the overlay_id (for remove_overlay), the clamped bounds and the monitor_index holding its centre.",
  input: DrawOverlayInput,
  result: DrawOverlayResult,
  annotations: { readOnlyHint: false, destructiveHint: false, openWorldHint: false },
  kind: 'overlay',
  runsIn: 'viewer',
  policyClass: 'free',
  summarize: (_args, r) =>
    `Drew overlay ${r.overlay_id} at ${r.bounds.x},${r.bounds.y} size ${r.bounds.width}x${r.bounds.height} on monitor ${r.monitor_index}${r.bounds.width === 0 || r.bounds.height === 0 ? ' (entirely off the desktop, so invisible)' : ''}.`,
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
  runsIn: 'viewer',
  policyClass: 'free',
  summarize: (a, r) =>
    r.removed
      ? `Removed overlay ${a.overlay_id}.`
      : `No overlay ${a.overlay_id} (already removed or expired).`,
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
  runsIn: 'viewer',
  policyClass: 'free',
  summarize: (_a, r) => `Cleared ${r.cleared} overlay(s).`,
});

/** Most overlays one batch_overlay call draws, and most one viewer store holds. */
export const MAX_BATCH_OVERLAYS = 10_000;
export const MAX_OVERLAYS = MAX_BATCH_OVERLAYS;

/** How long each overlay of a one_at_a_time batch is shown when it has no temporary_ms. */
export const ONE_AT_A_TIME_STEP_MS = 1_500;

/** How long a one_at_a_time batch takes: every overlay but the last is shown for its step. */
function oneAtATimeDurationMs(overlays: readonly { temporary_ms?: number | undefined }[]): number {
  return overlays
    .slice(0, -1)
    .reduce((sum, o) => sum + (o.temporary_ms ?? ONE_AT_A_TIME_STEP_MS), 0);
}

export const BatchOverlayInput = z.strictObject({
  overlays: z
    .array(DrawOverlayInput)
    .min(1)
    .max(MAX_BATCH_OVERLAYS)
    .describe(
      `1 to ${MAX_BATCH_OVERLAYS} overlays, each with the same fields as draw_overlay (monitor_index per item).`,
    ),
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
  description: `Draws up to ${MAX_BATCH_OVERLAYS} overlays in one call, all appearing in one update; much cheaper than many draw_overlay calls when highlighting several places. Each entry takes the draw_overlay fields (desktop pixels, or monitor-relative with its own monitor_index). Returns the new overlay ids in the order given.`,
  input: BatchOverlayInput,
  result: BatchOverlayResult,
  annotations: { readOnlyHint: false, destructiveHint: false, openWorldHint: false },
  kind: 'overlay',
  runsIn: 'viewer',
  policyClass: 'free',
  // Thousands of overlays travel and render in one update; a walk-through waits its steps.
  budgetMs: (a) => QUICK_CALL_MS * 2 + (a.one_at_a_time ? oneAtATimeDurationMs(a.overlays) : 0),
  summarize: (_a, r) =>
    r.overlay_ids.length <= 20
      ? `Drew ${r.overlay_ids.length} overlay(s): ${r.overlay_ids.join(', ')}.`
      : `Drew ${r.overlay_ids.length} overlays: ${r.overlay_ids.slice(0, 5).join(', ')} … ${r.overlay_ids.at(-1) ?? ''}.`,
});
