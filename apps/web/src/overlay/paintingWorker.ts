// What the overlay painting worker does with each message (overlayWorker.ts only binds it to the
// worker's global scope, so this runs in unit tests too): parses it (overlayWorkerProtocol.ts),
// keeps the boxes as the page's edits leave them — the same objects while they stay, so the
// canvas repaints only where boxes came or went (boxCanvas.ts) — and the last label tags it was
// given, and paints once for all frames
// that arrived while it was busy, then acknowledges the latest one.
import { BoxCanvas, type PaintBox } from './boxCanvas.js';
import type { PaintLabel } from './labelCanvas.js';
import {
  ToWorker,
  type BoxChange,
  type FrameMessage,
  type FromWorker,
} from './overlayWorkerProtocol.js';

/** `boxes` after `change` (a new array; the boxes that stayed are the same objects). */
export function applyBoxChange(boxes: readonly PaintBox[], change: BoxChange): readonly PaintBox[] {
  if (change.removed.length === 0 && change.added.length === 0) return boxes;
  const gone = new Set(change.removed);
  const kept = gone.size === 0 ? boxes : boxes.filter((b) => !gone.has(b.overlay_id));
  return kept.concat(change.added);
}

export class PaintingWorker {
  readonly #post: (message: FromWorker) => void;
  /** Runs `paint` after the messages already queued (so a burst is painted once). */
  readonly #later: (paint: () => void) => void;
  #canvas: BoxCanvas | null = null;
  #boxes: readonly PaintBox[] = [];
  #labels: readonly PaintLabel[] = [];
  #latest: FrameMessage | null = null;
  #scheduled = false;

  constructor(post: (message: FromWorker) => void, later: (paint: () => void) => void) {
    this.#post = post;
    this.#later = later;
  }

  receive(data: unknown): void {
    const parsed = ToWorker.safeParse(data);
    if (!parsed.success) {
      this.#post({ type: 'failed', message: `Bad message: ${parsed.error.message.slice(0, 500)}` });
      return;
    }
    const message = parsed.data;
    if (message.type === 'init') {
      const canvas = message.canvas;
      this.#canvas = new BoxCanvas(canvas, canvas.getContext('2d'));
      return;
    }
    if (this.#canvas === null) {
      this.#post({ type: 'failed', message: 'A frame came before the canvas.' });
      return;
    }
    this.#boxes = applyBoxChange(this.#boxes, message.change);
    if (message.labels !== null) this.#labels = message.labels;
    this.#latest = message;
    if (this.#scheduled) return;
    this.#scheduled = true;
    this.#later(() => this.#paint());
  }

  #paint(): void {
    this.#scheduled = false;
    const frame = this.#latest;
    const canvas = this.#canvas;
    if (frame === null || canvas === null) return;
    const started = performance.now();
    const count = canvas.paint(
      this.#boxes,
      this.#labels,
      frame.view,
      frame.ratio,
      frame.width,
      frame.height,
    );
    this.#post({
      type: 'painted',
      frame: frame.frame,
      seq: frame.seq,
      count,
      ms: Math.max(0, performance.now() - started),
    });
  }
}
