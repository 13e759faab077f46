// Paints the overlay layer outside React: every box on one canvas sized to the layer (device-
// pixel-ratio aware), repainted in one requestAnimationFrame after any change of the overlays,
// the viewport or the pointed-at overlay — however many changes came in between — and the
// labels as DOM tags (labelTags.ts). A frame where a few overlays came or went repaints only the
// pixels they cover (overlayDiff.ts): cleared there and repainted from every overlay touching
// them, in order, which gives exactly the pixels a full repaint would. The remote display is
// another element and never repainted for an overlay change. After each paint the layer says
// which store change it shows (data-painted-seq), how many overlays it drew (data-overlay-count)
// and how long the paint took on the main thread (data-paint-ms), for tests and the bench.
// When the boxes and labels together cover most of the layer, both are veiled (coverLimit.ts):
// drawn half-transparent, so the AI cannot hide the person's desktop from them (data-veiled).
import type { Overlay } from '@overlay-companion/protocol';
import { overlayStore } from '../store/overlays.js';
import { viewportStore } from '../store/viewport.js';
import type { Viewport } from '../viewport/viewport.js';
import { CoverGrid, VEIL_OPACITY } from './coverLimit.js';
import { hoverStore } from './hoverOverlay.js';
import { LabelTags } from './labelTags.js';
import { devicePixels, overlayChanges, touches, type PixelRect } from './overlayDiff.js';
import { forEachVisible, layerSize, pickLabels, type LabelItem } from './overlayFrame.js';
import { paintShape, shapeStroke } from './overlaysOnCanvas.js';

export interface PainterTargets {
  /** The layer element (positioned over the displayed picture). */
  layer: HTMLElement;
  canvas: HTMLCanvasElement;
  /** Where the label tags go (above the canvas). */
  labels: HTMLElement;
}

/** What the canvas shows. */
interface Shown {
  overlays: readonly Overlay[];
  members: ReadonlySet<Overlay>;
  viewport: Viewport;
  ratio: number;
  labelled: LabelItem[];
  count: number;
  /** The boxes in view, sampled over the layer (labels are added per frame). */
  boxes: CoverGrid;
}

/** Starts painting into `targets`; returns the undo. */
export function mountOverlayPainter({ layer, canvas, labels }: PainterTargets): () => void {
  const tags = new LabelTags(labels);
  const context = canvas.getContext('2d');
  let frame = 0;
  let shown: Shown | null = null;

  /**
   * Paints the overlays that touch `dirty` (all of them when 'all') after clearing those
   * pixels; returns the labelled overlays in view and how many are in view.
   */
  const paintCanvas = (
    overlays: readonly Overlay[],
    viewport: Viewport,
    ratio: number,
    dirty: PixelRect[] | 'all',
  ) => {
    const labelled: LabelItem[] = [];
    const area = layerSize(viewport);
    const boxes = new CoverGrid({ x: 0, y: 0, width: area.width, height: area.height });
    let color = '';
    const all = dirty === 'all';
    if (context !== null && (all || dirty.length > 0)) {
      context.save();
      context.setTransform(1, 0, 0, 1, 0, 0);
      if (!all) {
        context.beginPath();
        for (const r of dirty) context.rect(r.x0, r.y0, r.x1 - r.x0, r.y1 - r.y0);
        context.clip();
      }
      context.clearRect(0, 0, canvas.width, canvas.height);
      context.setTransform(ratio, 0, 0, ratio, 0, 0);
      shapeStroke(context);
    }
    const count = forEachVisible(overlays, viewport, (overlay, x, y, w, h) => {
      boxes.add(x, y, w, h);
      if (overlay.label !== undefined && overlay.label !== '') {
        labelled.push({ overlay, rect: { x, y, width: w, height: h } });
      }
      if (context === null || (!all && dirty.length === 0)) return;
      if (!all) {
        const pixels = devicePixels(x, y, w, h, ratio, canvas.width, canvas.height);
        if (pixels === undefined || !dirty.some((r) => touches(r, pixels))) return;
      }
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
    });
    if (context !== null && (all || dirty.length > 0)) context.restore();
    return { labelled, count, boxes };
  };

  /** The device pixels of the overlays that came or went, or 'all'. */
  const dirtyPixels = (before: Shown, overlays: readonly Overlay[], members: Set<Overlay>) => {
    const changed = overlayChanges(before.overlays, before.members, overlays, members);
    if (changed === 'all') return 'all';
    const pixels: PixelRect[] = [];
    forEachVisible(changed, before.viewport, (_o, x, y, w, h) => {
      const r = devicePixels(x, y, w, h, before.ratio, canvas.width, canvas.height);
      if (r !== undefined) pixels.push(r);
    });
    return pixels;
  };

  const paint = () => {
    frame = 0;
    const started = performance.now();
    const { overlays, seq } = overlayStore.getState();
    const { viewport } = viewportStore.getState();
    const hovered = hoverStore.getState().overlayId;
    const ratio = window.devicePixelRatio > 0 ? window.devicePixelRatio : 1;
    const area = layerSize(viewport);
    const width = Math.max(0, Math.round(area.width * ratio));
    const height = Math.max(0, Math.round(area.height * ratio));
    let resized = false;
    // Assigning the size clears the canvas (and its state) even when unchanged: only on change.
    if (canvas.width !== width || canvas.height !== height) {
      canvas.width = width;
      canvas.height = height;
      resized = true;
    }
    if (
      shown === null ||
      resized ||
      shown.overlays !== overlays ||
      shown.viewport !== viewport ||
      shown.ratio !== ratio
    ) {
      const members = new Set(overlays);
      const dirty =
        shown === null || resized || shown.viewport !== viewport || shown.ratio !== ratio
          ? 'all'
          : dirtyPixels(shown, overlays, members);
      shown = {
        overlays,
        members,
        viewport,
        ratio,
        ...paintCanvas(overlays, viewport, ratio, dirty),
      };
    }
    const placed = tags.update(pickLabels(shown.labelled, hovered), viewport.scale, area, hovered);
    const cover = new CoverGrid(
      { x: 0, y: 0, width: area.width, height: area.height },
      shown.boxes,
    );
    for (const r of placed) cover.add(r.x, r.y, r.width, r.height);
    const veiled = cover.exceeds();
    // CSS opacity on the layer's parts, not each box's alpha: stacked boxes cannot add up past it.
    const opacity = veiled ? String(VEIL_OPACITY) : '';
    canvas.style.opacity = opacity;
    labels.style.opacity = opacity;
    layer.dataset.veiled = String(veiled);
    layer.dataset.overlayCount = String(shown.count);
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
