// Paints the overlay layer outside React: every box on one canvas sized to the layer (device-
// pixel-ratio aware), repainted in one requestAnimationFrame after any change of the overlays,
// the viewport or the pointed-at overlay — however many changes came in between — and the
// labels as DOM tags (labelTags.ts). The remote display is another element and never repainted
// for an overlay change. After each paint the layer says which store change it shows
// (data-painted-seq), how many overlays it drew (data-overlay-count) and how long the paint took
// on the main thread (data-paint-ms), for tests and the bench.
import type { Overlay } from '@overlay-companion/protocol';
import { overlayStore } from '../store/overlays.js';
import { viewportStore } from '../store/viewport.js';
import type { Viewport } from '../viewport/viewport.js';
import { hoverStore } from './hoverOverlay.js';
import { LabelTags } from './labelTags.js';
import { forEachVisible, layerSize, pickLabels, type LabelItem } from './overlayFrame.js';
import { paintShape, shapeStroke } from './paintOverlays.js';

export interface PainterTargets {
  /** The layer element (positioned over the displayed picture). */
  layer: HTMLElement;
  canvas: HTMLCanvasElement;
  /** Where the label tags go (above the canvas). */
  labels: HTMLElement;
}

/** Starts painting into `targets`; returns the undo. */
export function mountOverlayPainter({ layer, canvas, labels }: PainterTargets): () => void {
  const tags = new LabelTags(labels);
  const context = canvas.getContext('2d');
  let frame = 0;
  // What the canvas shows, so a frame where only the pointed-at overlay changed keeps it.
  let drawn: {
    overlays: readonly Overlay[];
    viewport: Viewport;
    ratio: number;
    labelled: LabelItem[];
    count: number;
  } | null = null;

  const paintCanvas = (overlays: readonly Overlay[], viewport: Viewport, ratio: number) => {
    const area = layerSize(viewport);
    const width = Math.max(0, Math.round(area.width * ratio));
    const height = Math.max(0, Math.round(area.height * ratio));
    // Assigning the size clears the canvas (and its state) even when unchanged: only on change.
    if (canvas.width !== width || canvas.height !== height) {
      canvas.width = width;
      canvas.height = height;
    }
    const labelled: LabelItem[] = [];
    if (context === null) return { labelled, count: 0 };
    context.setTransform(1, 0, 0, 1, 0, 0);
    context.clearRect(0, 0, width, height);
    context.setTransform(ratio, 0, 0, ratio, 0, 0);
    shapeStroke(context);
    let color = '';
    const count = forEachVisible(overlays, viewport, (overlay, x, y, w, h) => {
      // Setting a style parses the color string: only when it changes.
      if (overlay.color !== color) {
        color = overlay.color;
        context.fillStyle = color;
        context.strokeStyle = color;
      }
      // Edges on whole device pixels: crisp boxes, and an outline that covers its pixels
      // exactly instead of blending into the fill.
      const left = Math.round(x * ratio) / ratio;
      const top = Math.round(y * ratio) / ratio;
      const right = Math.max(left + 1 / ratio, Math.round((x + w) * ratio) / ratio);
      const bottom = Math.max(top + 1 / ratio, Math.round((y + h) * ratio) / ratio);
      paintShape(context, left, top, right - left, bottom - top, overlay.opacity);
      if (overlay.label !== undefined && overlay.label !== '') {
        labelled.push({ overlay, rect: { x, y, width: w, height: h } });
      }
    });
    return { labelled, count };
  };

  const paint = () => {
    frame = 0;
    const started = performance.now();
    const { overlays, seq } = overlayStore.getState();
    const { viewport } = viewportStore.getState();
    const hovered = hoverStore.getState().overlayId;
    const ratio = window.devicePixelRatio > 0 ? window.devicePixelRatio : 1;
    if (
      drawn === null ||
      drawn.overlays !== overlays ||
      drawn.viewport !== viewport ||
      drawn.ratio !== ratio
    ) {
      drawn = { overlays, viewport, ratio, ...paintCanvas(overlays, viewport, ratio) };
    }
    tags.update(pickLabels(drawn.labelled, hovered), viewport.scale, layerSize(viewport), hovered);
    layer.dataset.overlayCount = String(drawn.count);
    layer.dataset.paintMs = (performance.now() - started).toFixed(2);
    layer.dataset.paintedSeq = String(seq);
  };

  const schedule = () => {
    if (frame === 0) frame = requestAnimationFrame(paint);
  };
  const unsubscribe = [
    overlayStore.subscribe(schedule),
    viewportStore.subscribe(schedule),
    hoverStore.subscribe(schedule),
  ];
  // Browser zoom and moving to another screen change the pixel ratio (and fire resize).
  window.addEventListener('resize', schedule);
  schedule();
  return () => {
    if (frame !== 0) cancelAnimationFrame(frame);
    for (const undo of unsubscribe) undo();
    window.removeEventListener('resize', schedule);
    tags.clear();
  };
}
