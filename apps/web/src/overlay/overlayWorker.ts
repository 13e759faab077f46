// The overlay layer's painting worker: paints the boxes on the layer's canvas, handed over as an
// OffscreenCanvas, off the main thread (paintingWorker.ts does the work; this binds it to the
// worker). Started by overlayPainter.ts with Vite's `new Worker(new URL(…), { type: 'module' })`.
import { afterQueued } from './afterQueued.js';
import { PaintingWorker } from './paintingWorker.js';

/** The part of the dedicated worker's global scope used here (the app's lib is the DOM's). */
const scope = self as unknown as {
  postMessage(message: unknown): void;
  addEventListener(type: 'message', listener: (event: MessageEvent) => void): void;
};

// Frames that came while a paint ran are all applied first, then painted once.
const worker = new PaintingWorker((message) => scope.postMessage(message), afterQueued());
scope.addEventListener('message', (event) => worker.receive(event.data));
