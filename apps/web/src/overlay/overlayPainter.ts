// Paints the overlay layer outside React: in one requestAnimationFrame after any change of the
// overlays, the viewport or the pointed-at overlay — however many changes came in between — the
// boxes and the label tags above them go to their canvas (boxSurface.ts: painted by a worker on
// an OffscreenCanvas where the browser can hand the canvas over, so the main thread only sends
// what changed; on the main thread otherwise). Where each tag goes is worked out here
// (labelTags.ts, again only where something changed); the tag pointed at is a DOM tag, whole.
// The remote display is another element and never repainted for an overlay change. The layer
// says which store change it shows once its boxes are painted — the worker's acknowledgement, or
// at once on the main thread — (data-painted-seq, and paintAck.ts for the test API, with the
// tags it handed over), how many
// overlays it drew (data-overlay-count), and how long its last animation frame took on the main
// thread (data-paint-ms), for tests and the bench.
// When the boxes and labels together cover most of the layer, both are veiled (coverLimit.ts):
// drawn half-transparent, so the AI cannot hide the person's desktop from them (data-veiled).
import type { Overlay } from '@overlay-companion/protocol';
import { overlayStore } from '../store/overlays.js';
import { viewportStore } from '../store/viewport.js';
import type { Viewport } from '../viewport/viewport.js';
import {
  canPaintInWorker,
  mainSurface,
  workerSurface,
  type BoxSurface,
  type Painted,
} from './boxSurface.js';
import { CoverGrid, VEIL_OPACITY } from './coverLimit.js';
import { hoverStore } from './hoverOverlay.js';
import { LabelTags, type ShownLabel } from './labelTags.js';
import { frameContent, layerSize, pickLabels, type LabelItem } from './overlayFrame.js';
import { paintAckStore } from './paintAck.js';

export interface PainterTargets {
  /** The layer element (positioned over the displayed picture). */
  layer: HTMLElement;
  canvas: HTMLCanvasElement;
  /** Where the label tags go (above the canvas). */
  labels: HTMLElement;
}

/** The largest canvas side in device pixels (the worker protocol's bound). */
const MAX_CANVAS_PX = 16_384;

/** What the last frame handed to the boxes' surface, and what the main thread keeps of it. */
interface Shown {
  overlays: readonly Overlay[];
  seq: number;
  viewport: Viewport;
  ratio: number;
  width: number;
  height: number;
  labelled: LabelItem[];
  labels: readonly ShownLabel[];
  /** The boxes in view, sampled over the layer (labels are added per frame). */
  boxes: CoverGrid;
}

/** Canvases already handed to a worker: they cannot be drawn on from here, nor handed again. */
const handedOver = new WeakSet<HTMLCanvasElement>();

/** `canvas`, or a fresh copy in its place when it was handed to a worker before. */
function drawable(canvas: HTMLCanvasElement): HTMLCanvasElement {
  if (!handedOver.has(canvas)) return canvas;
  const fresh = canvas.cloneNode(false) as HTMLCanvasElement;
  canvas.replaceWith(fresh);
  return fresh;
}

/** Starts painting into `targets`; returns the undo. */
export function mountOverlayPainter({ layer, canvas: given, labels }: PainterTargets): () => void {
  const tags = new LabelTags(labels);
  // React's StrictMode mounts twice in development: the second mount gets the first's canvas.
  const canvas = drawable(given);
  let boxCanvas = canvas;
  let frame = 0;
  let frames = 0;
  let shown: Shown | null = null;

  const painted = (p: Painted) => {
    layer.dataset.overlayCount = String(p.count);
    layer.dataset.paintedSeq = String(p.seq);
    paintAckStore.setState({ painted: { seq: p.seq, frame: p.frame } });
  };
  const start = (surface: BoxSurface) => {
    layer.dataset.paintPath = surface.path;
    paintAckStore.setState({ path: surface.path });
    return surface;
  };
  const inWorker = canPaintInWorker(canvas);
  if (inWorker) handedOver.add(canvas);
  let surface = start(
    inWorker
      ? workerSurface(canvas, painted, (why) => {
          // The canvas now belongs to the dead worker: paint a fresh one on this thread.
          console.warn(`Overlay painting worker failed (${why}); painting on the main thread.`);
          const fresh = drawable(canvas);
          boxCanvas = fresh;
          surface = start(mainSurface(fresh, painted));
          shown = null;
          schedule();
        })
      : mainSurface(canvas, painted),
  );

  const paint = () => {
    frame = 0;
    frames++;
    const started = performance.now();
    const { overlays, seq } = overlayStore.getState();
    const { viewport } = viewportStore.getState();
    const hovered = hoverStore.getState().overlayId;
    const ratio = window.devicePixelRatio > 0 ? window.devicePixelRatio : 1;
    const area = layerSize(viewport);
    const width = Math.min(MAX_CANVAS_PX, Math.max(0, Math.round(area.width * ratio)));
    const height = Math.min(MAX_CANVAS_PX, Math.max(0, Math.round(area.height * ratio)));
    const content =
      shown !== null && shown.overlays === overlays && shown.viewport === viewport
        ? shown
        : frameContent(overlays, viewport);
    const tagged = tags.update(
      pickLabels(content.labelled, hovered),
      viewport.scale,
      area,
      hovered,
    );
    if (
      shown === null ||
      shown.overlays !== overlays ||
      shown.seq !== seq ||
      shown.viewport !== viewport ||
      shown.ratio !== ratio ||
      shown.width !== width ||
      shown.height !== height ||
      shown.labels !== tagged.painted
    ) {
      const labels = tagged.painted;
      shown = { overlays, seq, viewport, ratio, width, height, ...content, labels };
      const posted = { seq, frame: frames };
      paintAckStore.setState(
        shown.labels === paintAckStore.getState().labels.shown
          ? { posted }
          : { posted, labels: { frame: frames, shown: labels } },
      );
      surface.show({
        frame: frames,
        seq,
        boxes: overlays,
        labels,
        view: viewport,
        ratio,
        width,
        height,
      });
    }
    const cover = new CoverGrid(
      { x: 0, y: 0, width: area.width, height: area.height },
      shown.boxes,
    );
    for (const r of tagged.boxes) cover.add(r.x, r.y, r.width, r.height);
    const veiled = cover.exceeds();
    // CSS opacity on the layer's parts, not each box's alpha: stacked boxes cannot add up past it.
    const opacity = veiled ? String(VEIL_OPACITY) : '';
    boxCanvas.style.opacity = opacity;
    labels.style.opacity = opacity;
    layer.dataset.veiled = String(veiled);
    layer.dataset.paintMs = (performance.now() - started).toFixed(2);
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
    surface.stop();
    tags.clear();
  };
}
