// Measuring label text the way it will be drawn (canvas measureText with the label font), so
// placement knows the tag's size before it is painted; widths are cached per font and text.
// Also how wide a tag may grow before its text is cut with an ellipsis: a share of the room the
// labels are drawn in, so a wide screen shows long labels whole and a phone keeps them short
// (the whole text stays in the tag and shows while the person points at it, hoverOverlay.ts).
// The tag's size counts the AI's mark before the text and the tag's frame.
import { labelFontSize } from './labelPlacement.js';

/** A tag may take this share of the area's width… */
const LABEL_WIDTH_SHARE = 0.4;
/** …but never less than this (about 30 characters: a phone's labels stay short)… */
const LABEL_MIN_WIDTH = 240;
/** …nor more than this (about 120 characters: a 4K screen's tags still read as tags). */
const LABEL_MAX_WIDTH = 960;
/** Horizontal padding inside a tag, each side (overlays.css .overlay-label). */
export const LABEL_PADDING_X = 6;
export const LABEL_PADDING_Y = 2;
/** The tag's frame, each side (overlays.css .overlay-label). */
export const LABEL_BORDER = 1;
/** The line's height per pixel of font size a tag is placed with (room for a tall font's line). */
const LABEL_LINE_HEIGHT = 1.35;
/**
 * The mark before every tag's text, saying the words are the AI's (labelTags.ts puts it in the
 * tag's data-mark; overlays.css draws it as a badge in the same font).
 */
export const AI_MARK = 'AI';
/** The badge's padding each side, and the gap after it (overlays.css .overlay-label::before). */
export const MARK_PADDING_X = 4;
export const MARK_GAP = 6;

/** The widest a tag may be (CSS pixels, padding included) in an area `areaWidth` wide. */
export function labelMaxWidth(areaWidth: number): number {
  const share = Math.round(areaWidth * LABEL_WIDTH_SHARE);
  const wanted = Math.min(LABEL_MAX_WIDTH, Math.max(LABEL_MIN_WIDTH, share));
  // A tag wider than the area would be cut by its edge instead of by the ellipsis.
  return Math.max(0, Math.min(wanted, Math.floor(areaWidth)));
}

export function labelFont(size: number): string {
  return `600 ${size}px system-ui, 'DejaVu Sans', sans-serif`;
}

let context: CanvasRenderingContext2D | OffscreenCanvasRenderingContext2D | null | undefined;
const widths = new Map<string, number>();

/** `text`'s width in `font` (CSS pixels), as the canvas draws it. */
export function measure(text: string, font: string): number {
  const key = `${font}\u0000${text}`;
  const cached = widths.get(key);
  if (cached !== undefined) return cached;
  context ??=
    typeof OffscreenCanvas === 'undefined' ? null : new OffscreenCanvas(1, 1).getContext('2d');
  let width = text.length * 7;
  if (context) {
    context.font = font;
    width = context.measureText(text).width;
  }
  if (widths.size > 5_000) widths.clear();
  widths.set(key, width);
  return width;
}

/**
 * The tag's size for `text` at view `scale` in an area `areaWidth` wide: capped at
 * labelMaxWidth(areaWidth) unless `whole`; `cut` when the cap leaves the text too little room.
 */
export function labelSize(text: string, scale: number, areaWidth: number, whole = false) {
  const size = labelFontSize(scale);
  const font = labelFont(size);
  const mark = Math.ceil(measure(AI_MARK, font)) + 2 * MARK_PADDING_X + MARK_GAP;
  const width = Math.ceil(measure(text, font)) + mark + 2 * (LABEL_PADDING_X + LABEL_BORDER);
  const cap = whole ? width : Math.min(width, labelMaxWidth(areaWidth));
  return {
    fontSize: size,
    width: cap,
    height: Math.ceil(size * LABEL_LINE_HEIGHT) + 2 * (LABEL_PADDING_Y + LABEL_BORDER),
    cut: cap < width,
  };
}

/**
 * `text` as it fits in `maxWidth` (measured by `measure`): whole when it fits, else the longest
 * start that fits with an ellipsis after it. For canvases, whose fillText would squeeze the
 * letters instead (the DOM tags get the same cut from CSS text-overflow).
 */
export function fitLabelText(
  text: string,
  maxWidth: number,
  measure: (text: string) => number,
): string {
  if (measure(text) <= maxWidth) return text;
  const characters = Array.from(text);
  // Binary search for the longest start that fits with the ellipsis (widths grow with length).
  let low = 0;
  let high = characters.length;
  while (low < high) {
    const middle = Math.ceil((low + high) / 2);
    if (measure(`${characters.slice(0, middle).join('')}…`) <= maxWidth) low = middle;
    else high = middle - 1;
  }
  return `${characters.slice(0, low).join('').trimEnd()}…`;
}
