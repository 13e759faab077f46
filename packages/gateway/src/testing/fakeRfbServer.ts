// A FAKE RFB server for tests of hostile or broken VNC servers — the one edge a real Xvnc cannot
// be made to reach (garbage, absurd rectangles, closing mid-frame). It performs a minimal RFB
// 3.8 handshake with security None, then hands the socket to a test script that writes
// whatever bytes the test wants. Never use it where a real Xvnc would do.
import { once } from 'node:events';
import { createServer, type Server, type Socket } from 'node:net';

export interface FakeRfbConnection {
  socket: Socket;
  /** Writes bytes to the client (ignored once the client has gone). */
  write(data: Buffer | string): void;
  /** Resolves when the client has sent at least `bytes` bytes in total since the script began. */
  received(bytes: number): Promise<void>;
}

export interface FakeRfbServerOptions {
  width?: number;
  height?: number;
  /** 'none' (default) does the handshake first; 'raw' gives the script the bare socket. */
  handshake?: 'none' | 'raw';
}

export interface FakeRfbServer {
  host: string;
  port: number;
  close(): Promise<void>;
}

/** Starts the fake on 127.0.0.1 and a free port; `script` runs once per connection. */
export async function startFakeRfbServer(
  script: (conn: FakeRfbConnection) => Promise<void> | void,
  options: FakeRfbServerOptions = {},
): Promise<FakeRfbServer> {
  const width = options.width ?? 64;
  const height = options.height ?? 48;
  const sockets = new Set<Socket>();
  const server: Server = createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => undefined);
    let inbound = Buffer.alloc(0);
    let scriptStart = 0;
    const waiters: { bytes: number; resolve: () => void }[] = [];
    const check = () => {
      for (const w of [...waiters]) {
        if (inbound.length - scriptStart >= w.bytes) {
          waiters.splice(waiters.indexOf(w), 1);
          w.resolve();
        }
      }
    };
    socket.on('data', (chunk: Buffer) => {
      inbound = Buffer.concat([inbound, chunk]);
      check();
    });
    const upTo = (total: number) =>
      new Promise<void>((resolve) => {
        waiters.push({ bytes: total - scriptStart, resolve });
        check();
      });
    const conn: FakeRfbConnection = {
      socket,
      write: (data) => {
        if (!socket.destroyed) socket.write(data);
      },
      received: (bytes) =>
        new Promise<void>((resolve) => {
          waiters.push({ bytes, resolve });
          check();
        }),
    };
    void (async () => {
      if (options.handshake !== 'raw') {
        conn.write('RFB 003.008\n');
        await upTo(12); // client version
        conn.write(Buffer.from([1, 1])); // one security type: None
        await upTo(13);
        conn.write(Buffer.alloc(4)); // SecurityResult OK
        await upTo(14); // ClientInit
        const init = Buffer.alloc(24);
        init.writeUInt16BE(width, 0);
        init.writeUInt16BE(height, 2);
        Buffer.from([32, 24, 0, 1, 0, 255, 0, 255, 0, 255, 16, 8, 0]).copy(init, 4);
        init.writeUInt32BE(4, 20);
        conn.write(Buffer.concat([init, Buffer.from('fake')]));
        scriptStart = inbound.length;
      }
      await script(conn);
    })().catch(() => socket.destroy());
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const address = server.address();
  if (address === null || typeof address === 'string')
    throw new Error('fake RFB server has no port');
  return {
    host: '127.0.0.1',
    port: address.port,
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
