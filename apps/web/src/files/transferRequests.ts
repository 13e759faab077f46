// The two transfers as HTTP requests, with progress and cancel: XMLHttpRequest, because fetch
// reports no upload progress and Chromium streams a fetch body only over HTTP/2. An upload sends
// the File itself (the browser reads it from disk as it goes, never all of it into memory) with
// the CSRF token; a download arrives as a Blob the page then saves. Every answer is parsed with
// its schema; a refusal becomes the bridge's own sentence.
import {
  ApiError,
  binaryBytesText,
  CSRF_HEADER,
  FILES_API,
  fileNameProblem,
  TransferDone,
} from '@overlay-companion/protocol';

/** A transfer under way: its outcome, and how to stop it. */
export interface RunningRequest<T> {
  done: Promise<T>;
  cancel(): void;
}

/** Cancelled by the person: not an error to show as one. */
export class TransferCancelled extends Error {
  override readonly name = 'TransferCancelled';
  constructor() {
    super('Cancelled.');
  }
}

export type Progress = (loaded: number, total: number) => void;

/** The bridge's sentence for a refusal, or a plain one naming the status. */
function refusalText(xhr: XMLHttpRequest, body: unknown): string {
  const parsed = ApiError.safeParse(body);
  if (parsed.success) return parsed.data.error;
  return `The bridge answered with HTTP ${xhr.status} and no explanation; try again, and look at the bridge's log if it keeps happening.`;
}

async function bodyOf(blob: unknown): Promise<unknown> {
  const text = blob instanceof Blob ? await blob.text() : typeof blob === 'string' ? blob : '';
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

function run<T>(
  xhr: XMLHttpRequest,
  send: () => void,
  onOk: (xhr: XMLHttpRequest) => Promise<T>,
): RunningRequest<T> {
  let cancelled = false;
  const done = new Promise<T>((resolve, reject) => {
    xhr.onload = () => {
      if (xhr.status >= 200 && xhr.status < 300) {
        onOk(xhr).then(resolve, reject);
        return;
      }
      void bodyOf(xhr.response).then((body) => reject(new Error(refusalText(xhr, body))));
    };
    xhr.onerror = () =>
      reject(
        new Error(
          'The connection to the bridge broke during the transfer; check that it is running and try again.',
        ),
      );
    xhr.onabort = () => reject(new TransferCancelled());
    send();
  });
  return {
    done,
    cancel: () => {
      if (cancelled) return;
      cancelled = true;
      xhr.abort();
    },
  };
}

/** Sends `file` to the desktop's transfer folder under its own name. */
export function uploadFile(
  desktopId: string,
  file: File,
  csrf: string,
  maxBytes: number,
  onProgress: Progress,
): RunningRequest<TransferDone> {
  const problem =
    fileNameProblem(file.name) ??
    (file.size > maxBytes
      ? `"${file.name}" is ${binaryBytesText(file.size)}; files of at most ${binaryBytesText(maxBytes)} can be sent. Split it or compress it first.`
      : undefined);
  if (problem !== undefined) return { done: Promise.reject(new Error(problem)), cancel: () => {} };
  const xhr = new XMLHttpRequest();
  xhr.responseType = 'blob';
  return run(
    xhr,
    () => {
      xhr.open('PUT', FILES_API.file(desktopId, file.name));
      xhr.setRequestHeader('Content-Type', 'application/octet-stream');
      xhr.setRequestHeader(CSRF_HEADER, csrf);
      xhr.upload.onprogress = (event) => onProgress(event.loaded, file.size);
      xhr.send(file);
    },
    async (ok) => {
      const parsed = TransferDone.safeParse(await bodyOf(ok.response));
      if (!parsed.success)
        throw new Error(
          "The bridge's answer to the upload is not what this page expects; reload the page.",
        );
      return parsed.data;
    },
  );
}

/** Fetches `name` from the desktop's transfer folder as a Blob. */
export function downloadFile(
  desktopId: string,
  name: string,
  size: number,
  onProgress: Progress,
): RunningRequest<Blob> {
  const xhr = new XMLHttpRequest();
  xhr.responseType = 'blob';
  return run(
    xhr,
    () => {
      xhr.open('GET', FILES_API.file(desktopId, name));
      xhr.onprogress = (event) =>
        onProgress(event.loaded, event.lengthComputable ? event.total : size);
      xhr.send();
    },
    (ok) => Promise.resolve(ok.response as Blob),
  );
}

/** Hands a fetched Blob to the browser as a download named `name`. */
export function saveBlob(blob: Blob, name: string): void {
  const url = URL.createObjectURL(blob);
  const link = document.createElement('a');
  link.href = url;
  link.download = name;
  link.rel = 'noopener';
  document.body.append(link);
  link.click();
  link.remove();
  // Chromium starts the download from the URL asynchronously: keep it a while, then free the Blob.
  setTimeout(() => URL.revokeObjectURL(url), 60_000);
}
