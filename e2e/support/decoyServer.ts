// A tiny web server on another loopback port, standing in for a site that tries to frame the
// bridge (clickjacking): it serves fixed HTML pages by path and nothing else. Another port is
// another origin — but the same site, so the browser still sends the bridge's SameSite=Strict
// cookie to a framed bridge page; only the bridge's own framing headers keep it out.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface DecoyServer {
  /** Base URL, e.g. http://127.0.0.1:41235/ */
  url: string;
  close(): Promise<void>;
}

/** Serves `pages` (path → HTML) on 127.0.0.1 on a free port; 404 for anything else. */
export async function startDecoyServer(pages: Record<string, string>): Promise<DecoyServer> {
  const server = createServer((request, response) => {
    const path = new URL(request.url ?? '/', 'http://decoy.invalid').pathname;
    const html = pages[path];
    if (html === undefined) {
      response.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
      return;
    }
    response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(html);
  });
  await new Promise<void>((ready, fail) => {
    server.once('error', fail);
    server.listen(0, '127.0.0.1', ready);
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/`,
    close: () =>
      new Promise<void>((done) => {
        server.closeAllConnections();
        server.close(() => done());
      }),
  };
}
