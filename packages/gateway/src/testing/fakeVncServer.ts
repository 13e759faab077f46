// A FAKE VNC server for failure tests only: after the fake RFB server's handshake (security
// None, a small 32-bit desktop) and once the client has asked for pixels, it starts a Raw
// FramebufferUpdate, sends half of its pixel data and closes the socket. A real Xvnc cannot be
// made to die mid-frame on cue, which is the one edge this stands in for.
import { startFakeRfbServer } from './fakeRfbServer.js';

export interface FakeVncServer {
  host: string;
  port: number;
  /** How many clients reached the point where the fake cut them off. */
  readonly cutOff: number;
  close(): Promise<void>;
}

const WIDTH = 64;
const HEIGHT = 32;

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
  const server = await startFakeRfbServer(
    async (conn) => {
      // Client messages (pixel format, encodings, update request) follow; answer after them.
      await conn.received(1);
      await new Promise((resolve) => setTimeout(resolve, 100));
      cutOff++;
      conn.socket.end(halfAFrame());
    },
    { width: WIDTH, height: HEIGHT },
  );
  return {
    host: server.host,
    port: server.port,
    get cutOff() {
      return cutOff;
    },
    close: () => server.close(),
  };
}
