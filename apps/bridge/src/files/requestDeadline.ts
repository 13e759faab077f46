// The HTTP server's bound on receiving a request, with file uploads left out. Node's own
// (server.requestTimeout, 5 minutes by default) ends every request whose body has not all
// arrived by then: it cut uploads of big files over slow links. It is turned off here and the
// same bound put back on every request but a file upload (isFileUpload), so a body trickled
// byte by byte into any other route still ends; an upload ends when idle instead
// (transferIdle.ts). Headers stay bounded by Node's headersTimeout.
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { isFileUpload } from '@overlay-companion/protocol';

/** The whole of a request but a file upload must have arrived by then (Node's default). */
export const REQUEST_DEADLINE_MS = 300_000;

export function requestDeadlineButUploads(
  server: Server,
  deadlineMs: number = REQUEST_DEADLINE_MS,
): void {
  server.requestTimeout = 0;
  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    const path = (req.url ?? '').split('?', 1)[0] ?? '';
    if (isFileUpload(req.method ?? '', path)) return;
    const timer = setTimeout(() => {
      // Only a request still arriving is ended; a slow answer (a stream, a long poll) is not.
      // Its route may still be writing, so no answer of ours: the connection just ends.
      if (!req.complete) req.socket.destroy();
    }, deadlineMs);
    timer.unref();
    res.once('close', () => clearTimeout(timer));
  });
}
