// A hostile or broken server (a FAKE RFB server: a real Xvnc cannot be made to misbehave) must
// end only its own connection with an RfbError — 'error' then 'close' — and never throw out of
// the process or write outside the framebuffer.
import { afterEach, describe, expect, test } from 'vitest';
import {
  nextEvent,
  startFakeRfbServer,
  type FakeRfbConnection,
  type FakeRfbServer,
} from '../testing/index.js';
import { RfbClient, RfbError } from './client.js';

const WIDTH = 64;
const HEIGHT = 48;

function rectHeader(x: number, y: number, w: number, h: number, encoding: number): Buffer {
  const b = Buffer.alloc(12);
  b.writeUInt16BE(x, 0);
  b.writeUInt16BE(y, 2);
  b.writeUInt16BE(w, 4);
  b.writeUInt16BE(h, 6);
  b.writeInt32BE(encoding, 8);
  return b;
}
const update = (rects: number) => Buffer.from([0, 0, rects >> 8, rects & 0xff]);

let fakeServer: FakeRfbServer | undefined;
afterEach(async () => {
  await fakeServer?.close();
  fakeServer = undefined;
});

/** Connects to a fake that runs `script`, and returns the RfbError the client ends with. */
async function endsWithError(
  script: (conn: FakeRfbConnection) => Promise<void> | void,
): Promise<{ error: RfbError; client: RfbClient }> {
  fakeServer = await startFakeRfbServer(script, { width: WIDTH, height: HEIGHT });
  const client = await RfbClient.connect({ host: fakeServer.host, port: fakeServer.port });
  const events: string[] = [];
  client.on('error', () => events.push('error'));
  client.on('close', () => events.push('close'));
  const [error] = await nextEvent<[RfbError]>(client, 'error', 5000);
  await new Promise((resolve) => setImmediate(resolve));
  expect(events).toEqual(['error', 'close']);
  expect(error).toBeInstanceOf(RfbError);
  return { error, client };
}

describe('hostile server (FAKE RFB server)', () => {
  test('unknown message type', async () => {
    const { error } = await endsWithError((c) => c.write(Buffer.from([99, 1, 2, 3])));
    expect(error.code).toBe('protocol');
    expect(error.message).toMatch(/unknown server message type 99/);
  });

  test('random garbage after the handshake', async () => {
    const { error } = await endsWithError((c) =>
      c.write(Buffer.from(Array.from({ length: 4096 }, (_, i) => (i * 7919 + 13) % 256))),
    );
    expect(['protocol', 'closed']).toContain(error.code);
  });

  test.each([
    ['a Raw rectangle past the right edge', rectHeader(60, 0, 10, 10, 0)],
    ['a Raw rectangle with 65535x65535 pixels', rectHeader(0, 0, 65535, 65535, 0)],
    ['a ZRLE rectangle past the bottom edge', rectHeader(0, 40, 8, 9, 16)],
    [
      'a CopyRect from outside the framebuffer',
      Buffer.concat([rectHeader(0, 0, 8, 8, 1), Buffer.from([0xff, 0xff, 0, 0])]),
    ],
    ['a desktop size of 65535x65535', rectHeader(0, 0, 65535, 65535, -223)],
    ['a 4000x4000 cursor', rectHeader(0, 0, 4000, 4000, -239)],
    ['an encoding we never asked for', rectHeader(0, 0, 8, 8, 7)],
  ])('%s', async (_name, rect) => {
    const { error, client } = await endsWithError((c) =>
      c.write(Buffer.concat([update(1), rect, Buffer.alloc(64)])),
    );
    expect(error.code).toBe('protocol');
    expect(client.framebuffer.length).toBe(WIDTH * HEIGHT * 4);
  });

  test('a ZRLE rectangle whose data is not zlib', async () => {
    const bad = Buffer.from('definitely not a zlib stream');
    const length = Buffer.alloc(4);
    length.writeUInt32BE(bad.length);
    const { error } = await endsWithError((c) =>
      c.write(Buffer.concat([update(1), rectHeader(0, 0, 16, 16, 16), length, bad])),
    );
    expect(error.code).toBe('protocol');
    expect(error.message).toMatch(/ZRLE data does not inflate/);
  });

  test('a ZRLE rectangle claiming 4 GB of data', async () => {
    const { error } = await endsWithError((c) =>
      c.write(
        Buffer.concat([
          update(1),
          rectHeader(0, 0, 16, 16, 16),
          Buffer.from([0xff, 0xff, 0xff, 0xff]),
        ]),
      ),
    );
    expect(error.code).toBe('protocol');
  });

  test('cut text claiming 2 GB', async () => {
    const { error } = await endsWithError((c) =>
      c.write(Buffer.from([3, 0, 0, 0, 0x7f, 0xff, 0xff, 0xff])),
    );
    expect(error.code).toBe('protocol');
    expect(error.message).toMatch(/cut text/);
  });

  test('an Extended Clipboard provide that is not zlib', async () => {
    const payload = Buffer.concat([Buffer.from([0x10, 0, 0, 1]), Buffer.from('garbage')]);
    const head = Buffer.from([3, 0, 0, 0, 0, 0, 0, 0]);
    head.writeInt32BE(-payload.length, 4);
    const { error } = await endsWithError((c) => c.write(Buffer.concat([head, payload])));
    expect(error.code).toBe('protocol');
  });

  test('the server closes in the middle of a Raw rectangle', async () => {
    const { error } = await endsWithError((c) => {
      c.write(Buffer.concat([update(1), rectHeader(0, 0, 32, 32, 0), Buffer.alloc(100)]));
      setTimeout(() => c.socket.end(), 50);
    });
    expect(error.code).toBe('closed');
    expect(error.message).toMatch(/in the middle of a message/);
  });

  test('a good rectangle is applied before a bad one ends the connection', async () => {
    fakeServer = await startFakeRfbServer((c) => {
      const red = Buffer.alloc(4 * 4 * 4);
      for (let i = 0; i < 16; i++) red.writeUInt32LE(0x000000ff, i * 4);
      c.write(
        Buffer.concat([update(2), rectHeader(2, 3, 4, 4, 0), red, rectHeader(63, 47, 2, 2, 0)]),
      );
    });
    const client = await RfbClient.connect({ host: fakeServer.host, port: fakeServer.port });
    const rects: unknown[] = [];
    client.on('rect', (r) => rects.push(r));
    const [error] = await nextEvent<[RfbError]>(client, 'error');
    expect(error.code).toBe('protocol');
    expect(rects).toEqual([{ x: 2, y: 3, width: 4, height: 4 }]);
    const o = (3 * WIDTH + 2) * 4;
    expect([...client.framebuffer.subarray(o, o + 4)]).toEqual([255, 0, 0, 255]);
  });

  test('a greeting that is not RFB rejects connect() with a protocol error', async () => {
    fakeServer = await startFakeRfbServer((c) => c.write('SSH-2.0-OpenSSH_9.2\r\n'), {
      handshake: 'raw',
    });
    const error = await RfbClient.connect({ host: fakeServer.host, port: fakeServer.port }).catch(
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(RfbError);
    expect((error as RfbError).code).toBe('protocol');
    expect((error as RfbError).message).toMatch(/is not a VNC server/);
  });

  test('an error with no error listener still ends in close, without throwing', async () => {
    fakeServer = await startFakeRfbServer((c) => c.write(Buffer.from([200])));
    const client = await RfbClient.connect({ host: fakeServer.host, port: fakeServer.port });
    await nextEvent(client, 'close');
  });
});
