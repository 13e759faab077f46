// Measuring label text the way it will be drawn (canvas measureText with the label font), so
// placement knows the tag's size before it is in the page; widths are cached per font and text.
import { labelFontSize } from './labelPlacement.js';

/** Longest label tag before it is cut with an ellipsis (hover or focus shows it whole). */
export const LABEL_MAX_WIDTH = 280;
const PADDING_X = 6;
const PADDING_Y = 2;

export function labelFont(size: number): string {
  return `600 ${size}px system-ui, 'DejaVu Sans', sans-serif`;
}

let context: CanvasRenderingContext2D | OffscreenCanvasRenderingContext2D | null | undefined;
const widths = new Map<string, number>();

function measure(text: string, font: string): number {
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

/** The tag's size for `text` at view `scale` (capped unless `whole`). */
export function labelSize(text: string, scale: number, whole = false) {
  const size = labelFontSize(scale);
  const width = Math.ceil(measure(text, labelFont(size))) + 2 * PADDING_X;
  return {
    fontSize: size,
    width: whole ? width : Math.min(width, LABEL_MAX_WIDTH),
    height: Math.ceil(size * 1.35) + 2 * PADDING_Y,
  };
}
