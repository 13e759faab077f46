// Where an overlay's label goes, so it points at its box without hiding it: outside the box
// when there is room — above, else below, else right, else left — and inside (at the top-left)
// only as a last resort; always clamped into the visible area so it is never cut off. One rule
// for the overlay layer and for take_screenshot's include_overlays (overlaysOnCanvas.ts).

export interface Box {
  x: number;
  y: number;
  width: number;
  height: number;
}

export type LabelSide = 'above' | 'below' | 'right' | 'left' | 'inside';

export interface LabelPlacement {
  x: number;
  y: number;
  side: LabelSide;
}

/** Gap between a box's outline and a label outside it. */
export const LABEL_GAP = 2;

/** Font size in CSS pixels for a view scale: follows the zoom, stays readable. */
export function labelFontSize(scale: number): number {
  return Math.round(Math.min(18, Math.max(10, 13 * scale)));
}

function clamp(value: number, min: number, max: number): number {
  return Math.max(min, Math.min(value, Math.max(min, max)));
}

/**
 * The label's top-left corner for a `label`-sized tag next to `box`, within `area` (both in the
 * same pixels, area's origin at 0,0).
 */
export function placeLabel(
  box: Box,
  label: { width: number; height: number },
  area: { width: number; height: number },
): LabelPlacement {
  const x = clamp(box.x, 0, area.width - label.width);
  const y = clamp(box.y, 0, area.height - label.height);
  if (box.y - LABEL_GAP - label.height >= 0)
    return { x, y: box.y - LABEL_GAP - label.height, side: 'above' };
  if (box.y + box.height + LABEL_GAP + label.height <= area.height)
    return { x, y: box.y + box.height + LABEL_GAP, side: 'below' };
  if (box.x + box.width + LABEL_GAP + label.width <= area.width)
    return { x: box.x + box.width + LABEL_GAP, y, side: 'right' };
  if (box.x - LABEL_GAP - label.width >= 0)
    return { x: box.x - LABEL_GAP - label.width, y, side: 'left' };
  return { x, y, side: 'inside' };
}
