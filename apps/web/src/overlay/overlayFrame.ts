// What one frame of the overlay layer shows, as pure functions (tested without a DOM): which
// overlays intersect this window's viewport and where (window CSS pixels, the viewport's
// one coordinate rule), and which of their labels get a tag. Only what the window shows is
// painted: a window with a part of the desktop (vx, vy, vw, vh) skips everything else. The boxes
// are painted by boxCanvas.ts; the labels and the coverage are the main thread's (frameContent).
import type { Overlay } from '@overlay-companion/protocol';
import type { RectLike, Viewport } from '../viewport/viewport.js';
import { CoverGrid } from './coverLimit.js';

/**
 * At most this many label tags are shown at once: the topmost labelled overlays in view (and
 * always the one the person points at); the boxes themselves are all painted. A typical tag (an
 * "AI" badge and a few words, ~90×24 CSS px) takes ~2,000 px²: 200 of them cover about 40% of a
 * 1280×800 desktop, and more only pile on each other unread (past half covered the layer is
 * veiled anyway, coverLimit.ts). The tags are painted on the layer's canvas (labelCanvas.ts, in
 * the painting worker where it runs); the cap also bounds what a frame sends the worker. When
 * they were DOM elements, each laid out, painted and committed by the main thread, the p99
 * frame's main-thread work with 5,000 overlays changing 20 times a second on a busy 2-core
 * machine (bench/overlayFramesExplain.ts) was 22 ms with 500 tags, 14 ms with 100 and 11 ms
 * with none.
 */
export const MAX_LABEL_TAGS = 200;

/** The layer's size in CSS pixels: the viewport at its scale. */
export function layerSize(viewport: Viewport): { width: number; height: number } {
  return { width: viewport.vw * viewport.scale, height: viewport.vh * viewport.scale };
}

/**
 * Calls `visit` for every overlay in drawing order that shows in the viewport, with its window
 * rectangle; returns how many there were. Empty overlays (clamped off the desktop) never show.
 */
export function forEachVisible<T extends Pick<Overlay, 'bounds'>>(
  overlays: readonly T[],
  viewport: Viewport,
  visit: (overlay: T, x: number, y: number, width: number, height: number) => void,
): number {
  const s = viewport.scale;
  const { width: areaWidth, height: areaHeight } = layerSize(viewport);
  let shown = 0;
  for (const overlay of overlays) {
    const b = overlay.bounds;
    if (b.width <= 0 || b.height <= 0) continue;
    const x = (b.x - viewport.vx) * s;
    const y = (b.y - viewport.vy) * s;
    const width = b.width * s;
    const height = b.height * s;
    if (x >= areaWidth || y >= areaHeight || x + width <= 0 || y + height <= 0) continue;
    visit(overlay, x, y, width, height);
    shown++;
  }
  return shown;
}

export interface LabelItem {
  overlay: Overlay;
  rect: RectLike;
}

/**
 * Which labelled overlays (given in drawing order) get a tag: the topmost `max`, plus the one
 * pointed at wherever it is in the pile; returned in drawing order (later tags on top).
 */
export function pickLabels(
  labelled: readonly LabelItem[],
  hovered: string | null,
  max = MAX_LABEL_TAGS,
): readonly LabelItem[] {
  if (labelled.length <= max) return labelled;
  const top = labelled.slice(labelled.length - max);
  if (hovered === null || top.some((i) => i.overlay.overlay_id === hovered)) return top;
  const pointed = labelled.find((i) => i.overlay.overlay_id === hovered);
  return pointed === undefined ? top : [pointed, ...top.slice(1)];
}

/**
 * What the main thread needs of a frame besides the painted boxes: the labelled overlays in
 * view (in drawing order) and the boxes in view for the layer's coverage (coverLimit.ts).
 */
export function frameContent(
  overlays: readonly Overlay[],
  viewport: Viewport,
): { labelled: LabelItem[]; boxes: CoverGrid } {
  const labelled: LabelItem[] = [];
  const area = layerSize(viewport);
  const boxes = new CoverGrid({ x: 0, y: 0, width: area.width, height: area.height });
  forEachVisible(overlays, viewport, (overlay, x, y, width, height) => {
    boxes.add(x, y, width, height);
    if (overlay.label !== undefined && overlay.label !== '') {
      labelled.push({ overlay, rect: { x, y, width, height } });
    }
  });
  return { labelled, boxes };
}
