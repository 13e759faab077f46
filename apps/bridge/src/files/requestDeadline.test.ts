// The server's bound on receiving a request, on a real Node HTTP server over loopback with the
// bound lowered to DEADLINE_MS: a JSON body trickled past it is ended; a file upload trickled
// past it is not (it ends when idle, transferIdle.ts); and an answer slower than the bound, its
// request all arrived, is not cut either.
import { createServer, request, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { requestDeadlineButUploads } from './requestDeadline.js';

const DEADLINE_MS = 300;
let server: Server;
let base: string;

beforeAll(async () => {
  server = createServer((req, res) => {
    let bytes = 0;
    req.on('error', () => undefined); // the request this test ends
    req.on('data', (chunk: Buffer) => (bytes += chunk.length));
    req.on('end', () => {
      // The slow answer: its request is all here, the answer takes longer than the bound.
      const wait = req.url === '/slow-answer' ? 3 * DEADLINE_MS : 0;
      setTimeout(() => res.end(`got ${bytes}`), wait);
    });
  });
  requestDeadlineButUploads(server, DEADLINE_MS);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

/** Sends `pieces` of 100 bytes, `pause` ms apart; the answer's text, or the error that ended it. */
async function trickle(method: string, path: string, pieces: number, pause: number) {
  const req = request(`${base}${path}`, {
    method,
    headers: { 'content-length': String(pieces * 100) },
  });
  const answer = new Promise<string>((resolve, reject) => {
    req.on('error', reject);
    req.once('response', (res: IncomingMessage) => {
      let text = '';
      res.on('data', (d: Buffer) => (text += d.toString()));
      res.once('end', () => resolve(text));
    });
  });
  const settled = answer.then(
    (text) => ({ text }),
    (err: NodeJS.ErrnoException) => ({ error: err.code ?? err.message }),
  );
  for (let i = 0; i < pieces && !req.destroyed; i += 1) {
    req.write(Buffer.alloc(100, 0x61));
    await sleep(pause);
  }
  if (!req.destroyed) req.end();
  return settled;
}

it('ends a request other than an upload whose body is still arriving at the bound', async () => {
  // Eight pieces a quarter of the bound apart: twice the bound in all.
  expect(await trickle('POST', '/api/settings', 8, DEADLINE_MS / 4)).toEqual({
    error: 'ECONNRESET',
  });
});

it('leaves a file upload to its idle limit, however long it takes in all', async () => {
  expect(await trickle('PUT', '/api/desktops/dsk_1/files/big.bin', 8, DEADLINE_MS / 4)).toEqual({
    text: 'got 800',
  });
});

it('does not cut an answer slower than the bound once the request is all here', async () => {
  expect(await trickle('POST', '/slow-answer', 1, 0)).toEqual({ text: 'got 100' });
});
