// A real TCP socket pair on loopback for connection tests (test code only).

import net from 'node:net';

export interface SocketPair {
  client: net.Socket;
  server: net.Socket;
  /** Destroys both ends and stops the listener. */
  close(): Promise<void>;
}

export async function socketPair(): Promise<SocketPair> {
  const listener = net.createServer();
  await new Promise<void>((resolve, reject) => {
    listener.once('error', reject);
    listener.listen(0, '127.0.0.1', resolve);
  });
  const { port } = listener.address() as net.AddressInfo;
  const accepted = new Promise<net.Socket>((resolve) => listener.once('connection', resolve));
  const client = net.connect(port, '127.0.0.1');
  await new Promise<void>((resolve, reject) => {
    client.once('connect', resolve);
    client.once('error', reject);
  });
  const server = await accepted;
  return {
    client,
    server,
    close: async () => {
      client.destroy();
      server.destroy();
      await new Promise<void>((resolve) => listener.close(() => resolve()));
    },
  };
}

/** Resolves once `socket` has closed. */
export function closed(socket: net.Socket): Promise<void> {
  if (socket.closed) return Promise.resolve();
  return new Promise((resolve) => socket.once('close', () => resolve()));
}

/** Everything `socket` receives until it closes, as text. */
export function readAll(socket: net.Socket): Promise<string> {
  const chunks: Buffer[] = [];
  socket.on('data', (chunk: Buffer) => chunks.push(chunk));
  return closed(socket).then(() => Buffer.concat(chunks).toString('utf8'));
}
