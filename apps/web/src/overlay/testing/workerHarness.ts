// Page side of overlayWorker.browser.test.ts (served by a Vite dev server, so the worker is
// built the way the app builds it): two canvases of the same size, one painted by the painting
// worker through the real OffscreenCanvas hand-over (boxSurface.ts workerSurface), the other on
// the main thread (mainSurface), fed the same frames. `show` resolves with the worker's
// acknowledgement; the test compares the two canvases' pixels on screen.
import type { Overlay } from '@overlay-companion/protocol';
import type { Viewport } from '../../viewport/viewport.js';
import { canPaintInWorker, mainSurface, workerSurface, type Painted } from '../boxSurface.js';
import type { PaintLabel } from '../labelCanvas.js';

const make = (id: string) => {
  const canvas = document.createElement('canvas');
  canvas.id = id;
  canvas.style.cssText = 'display:block;width:320px;height:240px;margin:0 0 8px 0';
  document.body.append(canvas);
  return canvas;
};
const onWorker = make('worker');
const onMain = make('main');

const waiting = new Map<number, (painted: Painted) => void>();
const failures: string[] = [];
const workerPainted = (painted: Painted) => {
  waiting.get(painted.frame)?.(painted);
  waiting.delete(painted.frame);
};
const inWorker = canPaintInWorker(onWorker);
const worker = workerSurface(onWorker, workerPainted, (why) => failures.push(why));
const main = mainSurface(onMain, () => undefined);
let frame = 0;
let lastLabels: PaintLabel[] = [];

Object.assign(window, {
  harness: {
    inWorker,
    failures,
    /**
     * Shows `boxes` and the tags `labels` (left out: the last frame's, the same array) through
     * `view` on both canvases; resolves with the worker's ack.
     */
    show(boxes: Overlay[], view: Viewport, seq: number, given?: PaintLabel[]): Promise<Painted> {
      frame++;
      const labels = given ?? lastLabels;
      lastLabels = labels;
      const f = { frame, seq, boxes, labels, view, ratio: 1, width: 320, height: 240 };
      const acked = new Promise<Painted>((resolve) => waiting.set(frame, resolve));
      worker.show(f);
      main.show(f);
      return acked;
    },
  },
});
