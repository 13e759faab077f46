// A FAKE VNC server for failure tests only: it completes a real RFB 3.8 handshake (security
// None, a small 32-bit desktop), then — once the client has asked for pixels — starts a Raw
// FramebufferUpdate, sends half of its pixel data and closes the socket. A real Xvnc cannot be
// made to die mid-frame on cue, which is the one edge this stands in for.
import { createServer, type Server, type Socket } from 'node:net';

export interface FakeVncServer {
  host: string;
  port: number;
  /** How many clients reached the point where the fake cut them off. */
  readonly cutOff: number;
  close(): Promise<void>;
}

const WIDTH = 64;
const HEIGHT = 32;

function serverInit(): Buffer {
  const name = Buffer.from('fake-vnc-closes-mid-frame', 'latin1');
  const b = Buffer.alloc(24 + name.length);
  b.writeUInt16BE(WIDTH, 0);
  b.writeUInt16BE(HEIGHT, 2);
  // Pixel format: 32 bpp, depth 24, little-endian, true colour, 8 bits per channel.
  b.writeUInt8(32, 4);
  b.writeUInt8(24, 5);
  b.writeUInt8(0, 6);
  b.writeUInt8(1, 7);
  b.writeUInt16BE(255, 8);
  b.writeUInt16BE(255, 10);
  b.writeUInt16BE(255, 12);
  b.writeUInt8(16, 14);
  b.writeUInt8(8, 15);
  b.writeUInt8(0, 16);
  b.writeUInt32BE(name.length, 20);
  name.copy(b, 24);
  return b;
}

function halfAFrame(): Buffer {
  const header = Buffer.alloc(4 + 12);
  header.writeUInt8(0, 0); // FramebufferUpdate
  header.writeUInt16BE(1, 2); // one rectangle
  header.writeUInt16BE(WIDTH, 8);
  header.writeUInt16BE(HEIGHT, 10);
  header.writeInt32BE(0, 12); // Raw
  return Buffer.concat([header, Buffer.alloc((WIDTH * HEIGHT * 4) / 2, 0x80)]);
}

export async function startFakeVncServerThatClosesMidFrame(): Promise<FakeVncServer> {
  let cutOff = 0;
  const sockets = new Set<Socket>();
  const server: Server = createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => undefined);
    let step: 'version' | 'security' | 'clientInit' | 'messages' | 'done' = 'version';
    let received = 0;
    socket.write('RFB 003.008\n');
    socket.on('data', (chunk: Buffer) => {
      received += chunk.length;
      if (step === 'version' && received >= 12) {
        step = 'security';
        received -= 12;
        socket.write(Buffer.from([1, 1])); // one security type: None
      }
      if (step === 'security' && received >= 1) {
        step = 'clientInit';
        received -= 1;
        socket.write(Buffer.alloc(4)); // SecurityResult OK
      }
      if (step === 'clientInit' && received >= 1) {
        step = 'messages';
        received -= 1;
        socket.write(serverInit());
      }
      // Client messages (pixel format, encodings, update request) follow; answer after them.
      if (step === 'messages' && received > 0) {
        step = 'done';
        setTimeout(() => {
          cutOff++;
          socket.end(halfAFrame());
        }, 100);
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const port = typeof address === 'object' && address !== null ? address.port : 0;
  return {
    host: '127.0.0.1',
    port,
    get cutOff() {
      return cutOff;
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}
