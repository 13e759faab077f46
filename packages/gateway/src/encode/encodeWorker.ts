// One encode worker thread (see encodePool.ts): takes regions as transferred RGBA pixels, encodes
// each (codecs.ts) and posts the image back, transferred too, under the task's id. A failure is
// posted back as an error for that task alone; the worker keeps serving.
import { parentPort } from 'node:worker_threads';
import { encodeImage } from './codecs.js';
import type { EncodeTask, EncodeReply } from './encodeMessages.js';

const port = parentPort;
if (port === null) throw new Error('encodeWorker.ts runs only as a worker thread');

port.on('message', (task: EncodeTask) => {
  encodeImage(Buffer.from(task.pixels), task.width, task.height, task.mode, task.thumbnail).then(
    (image) => {
      // sharp's output buffer belongs to native code and may not be transferable: copy it into
      // an ArrayBuffer of our own (tens of kilobytes, far cheaper than the encode).
      const data = new Uint8Array(image.data.length);
      data.set(image.data);
      const reply: EncodeReply = {
        id: task.id,
        ok: true,
        mimetype: image.mimetype,
        lossy: image.lossy,
        data: data.buffer,
      };
      port.postMessage(reply, [data.buffer]);
    },
    (error: unknown) => {
      const reply: EncodeReply = {
        id: task.id,
        ok: false,
        error: error instanceof Error ? error.message : String(error),
      };
      port.postMessage(reply);
    },
  );
});
