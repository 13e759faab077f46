// The bridge's node http server, listening and closing (bridge.ts): a listen that fails says what
// to do (a port in use: pick another), and a close that ends what the server holds — idle
// connections first, then the caller's own (the tunnels), then every connection left.
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { StartupError } from '../errors.js';

/** Listens on host:port; resolves with the port bound (port 0 picks a free one). */
export async function listenOn(server: Server, host: string, port: number): Promise<number> {
  await new Promise<void>((resolve, reject) => {
    server.once('error', (err: NodeJS.ErrnoException) =>
      reject(
        new StartupError(
          err.code === 'EADDRINUSE'
            ? `Port ${port} on ${host} is already in use. Pick another with --port (0 picks a free one).`
            : `The bridge could not listen on ${host}:${port}: ${err.message}`,
        ),
      ),
    );
    server.listen(port, host, () => resolve());
  });
  return (server.address() as AddressInfo).port;
}

/** A close() that runs once however often it is called, `ending` before connections are cut. */
export function closeOnce(server: Server, ending: () => Promise<void>): () => Promise<void> {
  let closing: Promise<void> | undefined;
  return () => {
    closing ??= (async () => {
      const stopped = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeIdleConnections();
      await ending();
      server.closeAllConnections();
      await stopped;
    })();
    return closing;
  };
}
