// Starts transfers and keeps their cancel handles: files sent to a desktop (the files panel's
// button, a drop on the viewer or on a fleet tile) and files fetched from it, each reported to
// the transfer store as it goes. Files dropped together go one after the other, so each gets
// the whole line and a cancel stops only its own.
import { MAX_TRANSFER_BYTES } from '@overlay-companion/protocol';
import { api } from '../net/api.js';
import { transferStore } from './transferStore.js';
import {
  downloadFile,
  saveBlob,
  TransferCancelled,
  uploadFile,
  type RunningRequest,
} from './transferRequests.js';

const running = new Map<number, RunningRequest<unknown>>();
/** Transfers not started yet (queued behind others), cancelled before they began. */
const cancelledEarly = new Set<number>();
let queue: Promise<void> = Promise.resolve();

/** The largest file the bridge takes, as its last listing said (the protocol's until then). */
let maxBytes = MAX_TRANSFER_BYTES;
export function maxBytesLearned(value: number): void {
  maxBytes = value;
}

async function follow<T>(id: number, request: RunningRequest<T>): Promise<T | undefined> {
  running.set(id, request);
  const store = transferStore.getState();
  try {
    return await request.done;
  } catch (thrown) {
    store.transferEnded(
      id,
      thrown instanceof TransferCancelled
        ? { status: 'cancelled' }
        : { status: 'failed', error: thrown instanceof Error ? thrown.message : String(thrown) },
    );
    return undefined;
  } finally {
    running.delete(id);
  }
}

/** Queues every file for the desktop, in order. */
export function sendFiles(desktopId: string, files: Iterable<File>): void {
  for (const file of files) {
    const store = transferStore.getState();
    const id = store.transferStarted({
      desktopId,
      direction: 'upload',
      name: file.name,
      size: file.size,
    });
    queue = queue.then(async () => {
      if (cancelledEarly.delete(id)) return;
      const csrf = (await api.me()).csrf_token;
      const request = uploadFile(desktopId, file, csrf, maxBytes, (loaded) =>
        transferStore.getState().transferProgressed(id, loaded),
      );
      const done = await follow(id, request);
      if (done !== undefined) store.transferEnded(id, { status: 'done', sha256: done.sha256 });
    });
  }
}

/** Fetches one file and hands it to the browser's downloads. */
export function fetchFile(desktopId: string, name: string, size: number): void {
  const store = transferStore.getState();
  const id = store.transferStarted({ desktopId, direction: 'download', name, size });
  const request = downloadFile(desktopId, name, size, (loaded) =>
    transferStore.getState().transferProgressed(id, loaded),
  );
  void follow(id, request).then((blob) => {
    if (blob === undefined) return;
    store.transferProgressed(id, blob.size);
    store.transferEnded(id, { status: 'done' });
    saveBlob(blob, name);
  });
}

export function cancelTransfer(id: number): void {
  const request = running.get(id);
  if (request !== undefined) {
    request.cancel();
    return;
  }
  // Still waiting its turn: it never starts.
  cancelledEarly.add(id);
  transferStore.getState().transferEnded(id, { status: 'cancelled' });
}
