// The overlay labels' tags painted on the layer's canvas, above the boxes (boxCanvas.ts: in the
// painting worker, or on the main thread where a canvas cannot be handed over), with the look
// the DOM tag has in overlays.css (.overlay-label: the dark tag in the AI's frame, led by its
// "AI" badge, the text cut with an ellipsis when the tag is capped). Painting them instead of
// keeping one DOM element each takes the tags' style, layout, paint and commit off the page's
// main thread: with 5,000 overlays changing 20 times a second the tags changed in most frames.
// The page still says which labels it handed over, and where (paintAck.ts), and shows the one
// the person points at as a DOM tag, whole (labelTags.ts). Text is painted with fillText: a
// label is always text, never markup.
import type { PixelRect } from './overlayDiff.js';
import { devicePixels, touches } from './overlayDiff.js';
import {
  AI_MARK,
  LABEL_BORDER,
  LABEL_PADDING_X,
  LABEL_PADDING_Y,
  MARK_GAP,
  MARK_PADDING_X,
  fitLabelText,
  labelFont,
  measure,
} from './labelText.js';

/** One tag as painted: its overlay's label, its box in layer CSS pixels and its font size. */
export interface PaintLabel {
  overlay_id: string;
  text: string;
  x: number;
  y: number;
  width: number;
  height: number;
  fontSize: number;
}

type Context2D = CanvasRenderingContext2D | OffscreenCanvasRenderingContext2D;

/** overlays.css .overlay-label and its ::before, and the AI's colours (--ai-mark, --ai-mark-edge). */
const TAG_BACKGROUND = 'rgba(15, 17, 20, 0.88)';
const TAG_EDGE = '#b36bff';
const TAG_TEXT = '#ffffff';
const MARK_BACKGROUND = '#7c3aed';
const TAG_RADIUS = 3;
const MARK_RADIUS = 2;

/** More tags than this changed in one frame repaint the whole canvas. */
const MAX_PARTIAL_LABELS = 64;

const keyOf = (l: PaintLabel) =>
  `${l.overlay_id}\u0000${l.x},${l.y},${l.width},${l.height},${l.fontSize}\u0000${l.text}`;

/**
 * The tags that came or went between two frames' lists (drawing order), or 'all' when too many
 * changed or those in both are stacked in another order.
 */
export function labelChanges(
  before: readonly PaintLabel[],
  after: readonly PaintLabel[],
): PaintLabel[] | 'all' {
  if (before === after) return [];
  const beforeKeys = before.map(keyOf);
  const afterKeys = after.map(keyOf);
  const had = new Set(beforeKeys);
  const has = new Set(afterKeys);
  const changed: PaintLabel[] = [];
  before.forEach((l, i) => {
    if (!has.has(beforeKeys[i] as string)) changed.push(l);
  });
  after.forEach((l, i) => {
    if (!had.has(afterKeys[i] as string)) changed.push(l);
  });
  if (changed.length > MAX_PARTIAL_LABELS) return 'all';
  const keptBefore = beforeKeys.filter((k) => has.has(k));
  const keptAfter = afterKeys.filter((k) => had.has(k));
  return keptBefore.every((k, i) => keptAfter[i] === k) ? changed : 'all';
}

/** The device pixels a tag covers (its box, rounded out), or undefined when off the canvas. */
export function labelPixels(
  label: PaintLabel,
  ratio: number,
  width: number,
  height: number,
): PixelRect | undefined {
  return devicePixels(label.x, label.y, label.width, label.height, ratio, width, height);
}

/** The tag's text as it fits the room its width leaves after the badge (cut with "…"). */
const fitted = new Map<string, string>();
function fitText(label: PaintLabel, font: string): string {
  const mark = Math.ceil(measure(AI_MARK, font)) + 2 * MARK_PADDING_X + MARK_GAP;
  const room = label.width - mark - 2 * (LABEL_PADDING_X + LABEL_BORDER);
  const key = `${font}\u0000${room}\u0000${label.text}`;
  const cached = fitted.get(key);
  if (cached !== undefined) return cached;
  const text = fitLabelText(label.text, room, (t) => measure(t, font));
  if (fitted.size > 2_000) fitted.clear();
  fitted.set(key, text);
  return text;
}

/**
 * Paints the tags in order, in CSS pixels on a context scaled by `ratio`; with `dirty`, only
 * those touching it (the caller clipped to it).
 */
export function paintLabels(
  context: Context2D,
  labels: readonly PaintLabel[],
  ratio: number,
  dirty: readonly PixelRect[] | 'all',
): void {
  const { width, height } = context.canvas;
  let font = '';
  for (const label of labels) {
    if (dirty !== 'all') {
      const pixels = labelPixels(label, ratio, width, height);
      if (pixels === undefined || !dirty.some((r) => touches(r, pixels))) continue;
    }
    const wanted = labelFont(label.fontSize);
    if (wanted !== font) {
      font = wanted;
      context.font = font;
    }
    paintTag(context, label, fitText(label, font), font, ratio);
  }
}

/**
 * One tag: as the DOM draws .overlay-label (box-sizing: border-box; the font shorthand the tag is
 * given leaves its line at the font's own height, ascent plus descent, under the padding — the
 * placement's size, labelText.ts labelSize, is rounded up and leaves room for a taller line),
 * edges on device pixels.
 */
function paintTag(
  context: Context2D,
  label: PaintLabel,
  text: string,
  font: string,
  ratio: number,
): void {
  const metrics = context.measureText(AI_MARK);
  const ascent = metrics.fontBoundingBoxAscent;
  const line = ascent + metrics.fontBoundingBoxDescent;
  const markWidth = metrics.width + 2 * MARK_PADDING_X;
  // As wide as its content (the DOM tag shrinks to fit), at most the width it was placed with.
  const content = markWidth + MARK_GAP + measure(text, font);
  const width = Math.min(label.width, content + 2 * (LABEL_PADDING_X + LABEL_BORDER));
  const snap = (v: number) => Math.round(v * ratio) / ratio;
  const x = snap(label.x);
  const y = snap(label.y);
  const w = snap(label.x + width) - x;
  const h = snap(label.y + line + 2 * (LABEL_PADDING_Y + LABEL_BORDER)) - y;
  context.fillStyle = TAG_BACKGROUND;
  context.beginPath();
  context.roundRect(x, y, w, h, TAG_RADIUS);
  context.fill();
  context.strokeStyle = TAG_EDGE;
  context.lineWidth = LABEL_BORDER;
  const half = LABEL_BORDER / 2;
  context.beginPath();
  context.roundRect(x + half, y + half, w - LABEL_BORDER, h - LABEL_BORDER, TAG_RADIUS - half);
  context.stroke();

  // The line inside the frame and padding, the text on its baseline.
  const left = x + LABEL_BORDER + LABEL_PADDING_X;
  const top = y + LABEL_BORDER + LABEL_PADDING_Y;
  const right = x + w - LABEL_BORDER - LABEL_PADDING_X;
  const baseline = top + ascent;

  context.save();
  // The text never leaves the tag's content box (the DOM tag's overflow: hidden).
  context.beginPath();
  context.rect(left, top, Math.max(0, right - left), line);
  context.clip();
  context.fillStyle = MARK_BACKGROUND;
  context.beginPath();
  context.roundRect(left, top, markWidth, line, MARK_RADIUS);
  context.fill();
  context.fillStyle = TAG_TEXT;
  context.textBaseline = 'alphabetic';
  context.fillText(AI_MARK, left + MARK_PADDING_X, baseline);
  context.fillText(text, left + markWidth + MARK_GAP, baseline);
  context.restore();
}
