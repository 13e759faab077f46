// Finds a free TCP port on loopback by letting the kernel pick one, for servers we start
// ourselves (Xvnc, test bridges). There is a short race between closing and reuse; callers
// that can bind port 0 directly should do that instead.
import { createServer } from 'node:net';

export function freePort(host = '127.0.0.1'): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.once('error', reject);
    server.listen(0, host, () => {
      const address = server.address();
      const port = typeof address === 'object' && address !== null ? address.port : 0;
      server.close(() => (port > 0 ? resolve(port) : reject(new Error('no free port found'))));
    });
  });
}
