// The messages between the overlay layer (overlayPainter.ts, main thread) and its painting worker
// (overlayWorker.ts), each parsed with its schema where it arrives. The page hands the worker its
// canvas once ('init'), then per animation frame in which something changed one 'frame': the
// view, the canvas size, the boxes as an edit of the last frame's: those that went by id,
// those that came on top (overlayDiff.ts overlayDelta), and the label tags to paint above them
// when they changed (labelCanvas.ts; at most MAX_LABEL_TAGS). The worker answers each
// painted frame with 'painted' — the acknowledgement the page reports as the layer's painted
// state (data-painted-seq, the test API's overlayPaint) — or says it cannot paint ('failed').
import { Overlay } from '@overlay-companion/protocol';
import { z } from 'zod';
import { MAX_LABEL_TAGS } from './overlayFrame.js';

/** What the worker gets of an overlay: enough to paint its box, nothing else (boxCanvas.ts). */
export const WorkerBox = Overlay.pick({
  overlay_id: true,
  bounds: true,
  color: true,
  opacity: true,
});

const View = z.strictObject({
  vx: z.number(),
  vy: z.number(),
  vw: z.number().nonnegative(),
  vh: z.number().nonnegative(),
  scale: z.number().positive(),
});

/** Canvas sizes in device pixels; far above any screen, well below what would exhaust memory. */
const DevicePixels = z.number().int().min(0).max(16_384);

export const BoxChange = z.strictObject({
  /** Ids of the boxes that went. */
  removed: z.array(z.string()),
  /** Boxes that came, on top of those that stayed, in drawing order. */
  added: z.array(WorkerBox),
});
export type BoxChange = z.infer<typeof BoxChange>;

/** A label's tag as placed by the page (labelTags.ts): the worker cuts and paints the text. */
export const WorkerLabel = z.strictObject({
  overlay_id: Overlay.shape.overlay_id,
  text: z.string().max(1_000),
  x: z.number(),
  y: z.number(),
  width: z.number().nonnegative(),
  height: z.number().nonnegative(),
  fontSize: z.number().positive().max(100),
});

const isOffscreenCanvas = (value: unknown): value is OffscreenCanvas =>
  typeof OffscreenCanvas !== 'undefined' && value instanceof OffscreenCanvas;

export const ToWorker = z.discriminatedUnion('type', [
  z.strictObject({
    type: z.literal('init'),
    canvas: z.custom<OffscreenCanvas>(isOffscreenCanvas, 'not an OffscreenCanvas'),
  }),
  z.strictObject({
    type: z.literal('frame'),
    /** The page's animation frame that sent it (counted by the layer from 1). */
    frame: z.number().int().positive(),
    /** The overlay store's change this frame shows. */
    seq: z.number().int().nonnegative(),
    view: View,
    ratio: z.number().positive(),
    width: DevicePixels,
    height: DevicePixels,
    change: BoxChange,
    /** The tags, in drawing order; null: the same as the last frame's. */
    labels: z.array(WorkerLabel).max(MAX_LABEL_TAGS).nullable(),
  }),
]);
export type ToWorker = z.infer<typeof ToWorker>;
export type FrameMessage = Extract<ToWorker, { type: 'frame' }>;

export const FromWorker = z.discriminatedUnion('type', [
  z.strictObject({
    type: z.literal('painted'),
    /** The latest frame painted (frames that came while it was busy are painted together). */
    frame: z.number().int().positive(),
    seq: z.number().int().nonnegative(),
    /** Boxes in view. */
    count: z.number().int().nonnegative(),
    /** The worker's time for the paint. */
    ms: z.number().nonnegative(),
  }),
  z.strictObject({ type: z.literal('failed'), message: z.string().max(2_000) }),
]);
export type FromWorker = z.infer<typeof FromWorker>;
export type PaintedMessage = Extract<FromWorker, { type: 'painted' }>;
