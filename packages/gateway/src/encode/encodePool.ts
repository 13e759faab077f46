// A pool of encode worker threads (node:worker_threads), one per core, shared by every gateway in
// the process: region pixels are copied out of the framebuffer on the main thread (which keeps
// decoding RFB into it) and transferred to the least busy worker; the image comes back
// transferred. Each call gets its own promise, so a caller sees its own results in its own order
// however the workers finish; the Guacamole user (guacUser.ts) assembles a frame's instructions only after all of
// its images are back. A worker that dies fails only its own tasks and is replaced.
import { availableParallelism } from 'node:os';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import type { EncodeReply, EncodeTask, ThumbnailScale } from './encodeMessages.js';
import type { EncodedImage, EncodeMode } from './imageTypes.js';

interface Pending {
  resolve: (image: EncodedImage) => void;
  reject: (error: Error) => void;
}

interface PoolWorker {
  worker: Worker;
  pending: Map<number, Pending>;
}

export class EncodePool {
  private readonly workers: PoolWorker[] = [];
  private nextId = 1;
  private closed = false;

  constructor(readonly size: number = availableParallelism()) {}

  /** Encodes tight RGBA `pixels` (transferred: the caller must not use them afterwards). */
  encode(
    pixels: ArrayBuffer,
    width: number,
    height: number,
    mode: EncodeMode,
    thumbnail?: ThumbnailScale,
  ) {
    if (this.closed) return Promise.reject(new Error('the encode pool is closed'));
    const target = this.leastBusy();
    const id = this.nextId++;
    const task: EncodeTask = { id, width, height, pixels, mode, thumbnail };
    return new Promise<EncodedImage>((resolve, reject) => {
      // A worker holds the process open only while it has work (see spawn).
      if (target.pending.size === 0) target.worker.ref();
      target.pending.set(id, { resolve, reject });
      target.worker.postMessage(task, [pixels]);
    });
  }

  /** Tasks not yet answered, over all workers (for tests and trace logs). */
  get inFlight(): number {
    return this.workers.reduce((sum, w) => sum + w.pending.size, 0);
  }

  /** Stops every worker; tasks still running fail. */
  async close(): Promise<void> {
    this.closed = true;
    const workers = this.workers.splice(0);
    for (const w of workers) this.failAll(w, new Error('the encode pool was closed'));
    await Promise.all(workers.map((w) => w.worker.terminate()));
  }

  private leastBusy(): PoolWorker {
    if (this.workers.length < this.size) {
      const idle = this.workers.find((w) => w.pending.size === 0);
      if (idle !== undefined) return idle;
      return this.spawn();
    }
    let best = this.workers[0]!;
    for (const w of this.workers) if (w.pending.size < best.pending.size) best = w;
    return best;
  }

  private spawn(): PoolWorker {
    const entry: PoolWorker = { worker: startWorker(), pending: new Map() };
    const { worker, pending } = entry;
    // Idle workers must not keep a process alive that is otherwise done.
    worker.unref();
    worker.on('message', (reply: EncodeReply) => {
      const waiter = pending.get(reply.id);
      if (waiter === undefined) return;
      pending.delete(reply.id);
      if (pending.size === 0) worker.unref();
      if (reply.ok) {
        waiter.resolve({
          mimetype: reply.mimetype,
          lossy: reply.lossy,
          data: Buffer.from(reply.data),
        });
      } else {
        waiter.reject(new Error(`encoding failed: ${reply.error}`));
      }
    });
    const retire = (error: Error) => {
      const at = this.workers.indexOf(entry);
      if (at >= 0) this.workers.splice(at, 1);
      this.failAll(entry, error);
    };
    worker.on('error', (error) => retire(error));
    worker.on('exit', (code) =>
      retire(new Error(`an encode worker exited (code ${String(code)})`)),
    );
    this.workers.push(entry);
    return entry;
  }

  private failAll(entry: PoolWorker, error: Error): void {
    for (const waiter of entry.pending.values()) waiter.reject(error);
    entry.pending.clear();
  }
}

/**
 * Starts one worker. Built code runs encodeWorker.js; a source checkout (tests, the bench run
 * TypeScript through tsx or vitest) has only encodeWorker.ts, which plain Node cannot load, so
 * the worker first registers tsx's loader in its own thread.
 */
function startWorker(): Worker {
  const here = import.meta.url;
  if (!here.endsWith('.ts')) return new Worker(new URL('./encodeWorker.js', here));
  // tsx's ESM entry of its API (what `import 'tsx/esm/api'` loads), found from this file.
  const tsxRoot = dirname(createRequire(here).resolve('tsx/package.json'));
  const tsx = pathToFileURL(join(tsxRoot, 'dist', 'esm', 'api', 'index.mjs')).href;
  const entry = new URL('./encodeWorker.ts', here).href;
  const bootstrap = `import(${JSON.stringify(tsx)}).then((m) => { m.register(); return import(${JSON.stringify(entry)}); });`;
  return new Worker(bootstrap, { eval: true });
}

let shared: EncodePool | undefined;
let users = 0;

/** The process's pool; every acquire needs one release (the last one stops the workers). */
export function acquireEncodePool(): EncodePool {
  shared ??= new EncodePool();
  users++;
  return shared;
}

export async function releaseEncodePool(): Promise<void> {
  users = Math.max(0, users - 1);
  if (users > 0 || shared === undefined) return;
  const pool = shared;
  shared = undefined;
  await pool.close();
}
