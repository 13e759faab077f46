// The overlay layer's painting worker: paints the boxes on the layer's canvas, handed over as an
// OffscreenCanvas, off the main thread (paintingWorker.ts does the work; this binds it to the
// worker). Started by overlayPainter.ts with Vite's `new Worker(new URL(…), { type: 'module' })`.
import { PaintingWorker } from './paintingWorker.js';

/** The part of the dedicated worker's global scope used here (the app's lib is the DOM's). */
const scope = self as unknown as {
  postMessage(message: unknown): void;
  addEventListener(type: 'message', listener: (event: MessageEvent) => void): void;
};

// A message on our own channel is queued behind the page's messages already waiting: frames
// that came while a paint ran are all applied first, then painted once.
const channel = new MessageChannel();
let pending: (() => void) | null = null;
channel.port1.onmessage = () => {
  const paint = pending;
  pending = null;
  paint?.();
};

const worker = new PaintingWorker(
  (message) => scope.postMessage(message),
  (paint) => {
    pending = paint;
    channel.port2.postMessage(null);
  },
);
scope.addEventListener('message', (event) => worker.receive(event.data));
