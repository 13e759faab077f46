// Where the overlay layer's boxes get painted, chosen by what the browser can do: in the painting
// worker on the layer's canvas handed over as an OffscreenCanvas (workerSurface: the main thread
// only sends what changed, so thousands of boxes changing cost it next to nothing; the label
// tags are painted there too), or on the main thread where a canvas cannot be handed to a worker
// (mainSurface). Both paint through
// boxCanvas.ts and report each painted frame the same way (onPainted).
import type { Overlay } from '@overlay-companion/protocol';
import type { Viewport } from '../viewport/viewport.js';
import { BoxCanvas, type PaintBox } from './boxCanvas.js';
import type { PaintLabel } from './labelCanvas.js';
import { overlayDelta } from './overlayDiff.js';
import {
  FromWorker,
  type BoxChange,
  type PaintedMessage,
  type ToWorker,
} from './overlayWorkerProtocol.js';
import type { PaintPath } from './paintAck.js';

/** One animation frame's state for the boxes. */
export interface BoxFrame {
  frame: number;
  seq: number;
  boxes: readonly Overlay[];
  /** The label tags above the boxes; the same array while they stay the same. */
  labels: readonly PaintLabel[];
  view: Viewport;
  ratio: number;
  /** The canvas in device pixels. */
  width: number;
  height: number;
}

export type Painted = Omit<PaintedMessage, 'type'>;

export interface BoxSurface {
  readonly path: PaintPath;
  show(frame: BoxFrame): void;
  stop(): void;
}

/** Whether this browser can paint `canvas` in a worker (feature detection, nothing else). */
export function canPaintInWorker(canvas: HTMLCanvasElement): boolean {
  return (
    typeof Worker !== 'undefined' &&
    typeof OffscreenCanvas !== 'undefined' &&
    typeof canvas.transferControlToOffscreen === 'function'
  );
}

export function mainSurface(
  canvas: HTMLCanvasElement,
  onPainted: (painted: Painted) => void,
): BoxSurface {
  const boxes = new BoxCanvas(canvas, canvas.getContext('2d'));
  return {
    path: 'main',
    show(f) {
      const started = performance.now();
      const count = boxes.paint(f.boxes, f.labels, f.view, f.ratio, f.width, f.height);
      onPainted({ frame: f.frame, seq: f.seq, count, ms: performance.now() - started });
    },
    stop() {},
  };
}

/** What the worker gets of an overlay (overlayWorkerProtocol.ts WorkerBox). */
const toBox = (o: Overlay): PaintBox => ({
  overlay_id: o.overlay_id,
  bounds: o.bounds,
  color: o.color,
  opacity: o.opacity,
});

/** What the worker gets of a tag (overlayWorkerProtocol.ts WorkerLabel). */
const toLabel = ({ overlay_id, text, x, y, width, height, fontSize }: PaintLabel): PaintLabel => ({
  overlay_id,
  text,
  x,
  y,
  width,
  height,
  fontSize,
});

/**
 * Hands `canvas` to a new painting worker. `onFailed` is told once if the worker cannot run (its
 * script failed to load, or it reports it cannot paint); the canvas is lost to this page then.
 */
export function workerSurface(
  canvas: HTMLCanvasElement,
  onPainted: (painted: Painted) => void,
  onFailed: (why: string) => void,
): BoxSurface {
  const worker = new Worker(new URL('./overlayWorker.ts', import.meta.url), { type: 'module' });
  let failed = false;
  const fail = (why: string) => {
    if (failed) return;
    failed = true;
    worker.terminate();
    onFailed(why);
  };
  worker.addEventListener('message', (event: MessageEvent) => {
    const parsed = FromWorker.safeParse(event.data);
    if (!parsed.success) return fail(`unreadable message: ${parsed.error.message}`);
    const message = parsed.data;
    if (message.type === 'failed') return fail(message.message);
    const { frame, seq, count, ms } = message;
    onPainted({ frame, seq, count, ms });
  });
  worker.addEventListener('error', (event) => fail(event.message || 'the worker did not start'));
  const post = (message: ToWorker, transfer: Transferable[] = []) =>
    worker.postMessage(message, transfer);
  const offscreen = canvas.transferControlToOffscreen();
  post({ type: 'init', canvas: offscreen }, [offscreen]);

  // What the worker holds, so each frame sends only the edit.
  let sent: readonly Overlay[] = [];
  let sentLabels: readonly PaintLabel[] | null = null;
  const changeTo = (boxes: readonly Overlay[]): BoxChange => {
    const { removed, added } = overlayDelta(sent, boxes);
    sent = boxes;
    return { removed: removed.map((o) => o.overlay_id), added: added.map(toBox) };
  };
  return {
    path: 'worker',
    show(f) {
      if (failed) return;
      const { vx, vy, vw, vh, scale } = f.view;
      post({
        type: 'frame',
        frame: f.frame,
        seq: f.seq,
        view: { vx, vy, vw, vh, scale },
        ratio: f.ratio,
        width: f.width,
        height: f.height,
        change: changeTo(f.boxes),
        labels: f.labels === sentLabels ? null : f.labels.map(toLabel),
      });
      sentLabels = f.labels;
    },
    stop() {
      worker.terminate();
    },
  };
}
