// The client handshake against a fake guacd: a tiny TCP server in this test that answers with
// literal wire text, the way guacd does, and records what the client sent. It stands in for
// Apache guacd, which cannot be installed here; the gateway's own tests run the real handshake
// against our gateway.

import net from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { GuacConnection } from './connection.js';
import { clientHandshake, mapConnectArgs, type ClientHandshakeInfo } from './handshake.js';
import { GuacParser, type GuacInstruction } from './parser.js';
import { GuacProtocolError, GuacStatus } from './status.js';

type FakeGuacdScript = (
  socket: net.Socket,
  received: GuacInstruction[],
  wait: (opcode: string) => Promise<void>,
) => Promise<void>;

interface FakeGuacd {
  port: number;
  /** Every instruction the client sent, in order. */
  received: GuacInstruction[];
  stop(): Promise<void>;
}

/** Fake guacd: runs `script` for each client; the script writes literal Guacamole text. */
async function startFakeGuacd(script: FakeGuacdScript): Promise<FakeGuacd> {
  const received: GuacInstruction[] = [];
  const sockets = new Set<net.Socket>();
  const server = net.createServer((socket) => {
    sockets.add(socket);
    const parser = new GuacParser();
    let waiting: { opcode: string; resolve: () => void } | undefined;
    socket.on('data', (chunk: Buffer) => {
      for (const instruction of parser.push(chunk)) {
        received.push(instruction);
        if (waiting && instruction.opcode === waiting.opcode) waiting.resolve();
      }
    });
    socket.on('error', () => {});
    const wait = (opcode: string) =>
      new Promise<void>((resolve) => {
        if (received.some((i) => i.opcode === opcode)) resolve();
        else waiting = { opcode, resolve };
      });
    void script(socket, received, wait);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as net.AddressInfo).port,
    received,
    stop: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

const guacds: FakeGuacd[] = [];
const conns: GuacConnection[] = [];
afterEach(async () => {
  for (const conn of conns.splice(0)) conn.socket.destroy();
  await Promise.all(guacds.splice(0).map((g) => g.stop()));
});

async function connectTo(
  script: FakeGuacdScript,
): Promise<{ guacd: FakeGuacd; conn: GuacConnection }> {
  const guacd = await startFakeGuacd(script);
  guacds.push(guacd);
  const socket = net.connect(guacd.port, '127.0.0.1');
  await new Promise<void>((resolve, reject) => {
    socket.once('connect', resolve);
    socket.once('error', reject);
  });
  const conn = new GuacConnection(socket);
  conns.push(conn);
  return { guacd, conn };
}

const info: ClientHandshakeInfo = {
  width: 1280,
  height: 800,
  dpi: 96,
  audio: ['audio/L16'],
  video: [],
  image: ['image/png', 'image/jpeg'],
  timezone: 'Europe/Berlin',
  name: 'Ada 😀',
};

const VNC_ARGS_1_5_0 = '4.args,13.VERSION_1_5_0,8.hostname,4.port,8.password,9.read-only;';

describe('clientHandshake against a fake guacd', () => {
  it('performs the 1.5.0 handshake in guacd order and maps params by position', async () => {
    const { guacd, conn } = await connectTo(async (socket, _received, wait) => {
      await wait('select');
      socket.write(VNC_ARGS_1_5_0);
      await wait('connect');
      // `ready` and the first frame in one write: the frame must not be lost.
      socket.write('5.ready,37.$260d01da-779b-4ee9-afc1-c16bae885cc7;4.size,1.0,4.1280,3.800;');
    });
    const result = await clientHandshake(conn, {
      select: 'vnc',
      params: { hostname: '127.0.0.1', port: '5901', 'read-only': 'true', unrelated: 'x' },
      info,
    });
    expect(result).toEqual({
      connectionId: '$260d01da-779b-4ee9-afc1-c16bae885cc7',
      argNames: ['VERSION_1_5_0', 'hostname', 'port', 'password', 'read-only'],
      protocolVersion: 'VERSION_1_5_0',
    });
    expect(guacd.received).toEqual([
      { opcode: 'select', args: ['vnc'] },
      { opcode: 'size', args: ['1280', '800', '96'] },
      { opcode: 'audio', args: ['audio/L16'] },
      { opcode: 'video', args: [] },
      { opcode: 'image', args: ['image/png', 'image/jpeg'] },
      { opcode: 'timezone', args: ['Europe/Berlin'] },
      { opcode: 'name', args: ['Ada 😀'] },
      // Missing params are sent empty, which guacd reads as "use the default".
      { opcode: 'connect', args: ['VERSION_1_5_0', '127.0.0.1', '5901', '', 'true'] },
    ]);
    // What guacd would do with that connect:
    const connect = guacd.received.at(-1) as GuacInstruction;
    expect(mapConnectArgs(result.argNames, connect.args)).toEqual(
      new Map([
        ['hostname', '127.0.0.1'],
        ['port', '5901'],
        ['password', ''],
        ['read-only', 'true'],
      ]),
    );
    const frames: GuacInstruction[] = [];
    conn.on('instruction', (i) => frames.push(i));
    await new Promise((resolve) => setImmediate(resolve));
    expect(frames).toEqual([{ opcode: 'size', args: ['0', '1280', '800'] }]);
  });

  it('speaks the older version a 1.1.0 guacd offers: timezone yes, name no', async () => {
    const { guacd, conn } = await connectTo(async (socket, _received, wait) => {
      await wait('select');
      socket.write('4.args,13.VERSION_1_1_0,8.hostname;');
      await wait('connect');
      socket.write('5.ready,5.$c0de;');
    });
    const result = await clientHandshake(conn, { select: 'vnc', params: { hostname: 'h' }, info });
    expect(result.protocolVersion).toBe('VERSION_1_1_0');
    expect(guacd.received.map((i) => i.opcode)).toEqual([
      'select',
      'size',
      'audio',
      'video',
      'image',
      'timezone',
      'connect',
    ]);
    expect(guacd.received.at(-1)).toEqual({ opcode: 'connect', args: ['VERSION_1_1_0', 'h'] });
  });

  it('talks to a guacd from before protocol versions: no version, no timezone, no name', async () => {
    const { guacd, conn } = await connectTo(async (socket, _received, wait) => {
      await wait('select');
      socket.write('4.args,8.hostname,4.port;');
      await wait('connect');
      socket.write('5.ready,5.$0001;');
    });
    const result = await clientHandshake(conn, {
      select: 'vnc',
      params: { hostname: 'h', port: '1' },
      info,
    });
    expect(result.protocolVersion).toBeUndefined();
    expect(guacd.received.map((i) => i.opcode)).toEqual([
      'select',
      'size',
      'audio',
      'video',
      'image',
      'connect',
    ]);
    expect(guacd.received.at(-1)).toEqual({ opcode: 'connect', args: ['h', '1'] });
  });

  it("rejects with guacd's own message and status for an unsupported protocol, and closes", async () => {
    const { conn } = await connectTo(async (socket, _received, wait) => {
      await wait('select');
      socket.end('5.error,49.Protocol "rdp" is not supported (supported: vnc).,3.256;');
    });
    await expect(clientHandshake(conn, { select: 'rdp', params: {}, info })).rejects.toMatchObject({
      name: 'GuacProtocolError',
      message: 'Protocol "rdp" is not supported (supported: vnc).',
      status: GuacStatus.UNSUPPORTED,
    });
    expect(conn.isClosed).toBe(true);
  });

  it('fails with UPSTREAM_TIMEOUT when guacd never answers', async () => {
    const { conn } = await connectTo(async () => {});
    const start = Date.now();
    await expect(
      clientHandshake(conn, { select: 'vnc', params: {}, info, timeoutMs: 150 }),
    ).rejects.toMatchObject({
      status: GuacStatus.UPSTREAM_TIMEOUT,
      message: /sent no 'args' in time/,
    });
    expect(Date.now() - start).toBeLessThan(2000);
  });

  it('fails with UPSTREAM_ERROR when guacd closes mid-handshake', async () => {
    const { conn } = await connectTo(async (socket, _received, wait) => {
      await wait('select');
      socket.write(VNC_ARGS_1_5_0);
      await wait('connect');
      socket.destroy();
    });
    await expect(clientHandshake(conn, { select: 'vnc', params: {}, info })).rejects.toMatchObject({
      status: GuacStatus.UPSTREAM_ERROR,
      message: /closed the connection before sending 'ready'/,
    });
  });

  it('fails with UPSTREAM_ERROR when guacd sends malformed data', async () => {
    const { conn } = await connectTo(async (socket, _received, wait) => {
      await wait('select');
      socket.write('HTTP/1.1 400 Bad Request\r\n\r\n');
    });
    const failure = clientHandshake(conn, { select: 'vnc', params: {}, info });
    await expect(failure).rejects.toMatchObject({
      status: GuacStatus.UPSTREAM_ERROR,
      message: /found 'H'/,
    });
  });

  it('fails with UPSTREAM_ERROR on an unexpected instruction or an empty ready', async () => {
    const first = await connectTo(async (socket, _received, wait) => {
      await wait('select');
      socket.write('5.ready,5.$abcd;');
    });
    await expect(
      clientHandshake(first.conn, { select: 'vnc', params: {}, info }),
    ).rejects.toMatchObject({
      status: GuacStatus.UPSTREAM_ERROR,
      message: /Expected 'args'.*received 'ready'/,
    });
    const second = await connectTo(async (socket, _received, wait) => {
      await wait('select');
      socket.write('4.args,13.VERSION_1_5_0;');
      await wait('connect');
      socket.write('5.ready;');
    });
    await expect(
      clientHandshake(second.conn, { select: 'vnc', params: {}, info }),
    ).rejects.toMatchObject({
      status: GuacStatus.UPSTREAM_ERROR,
      message: /no connection id/,
    });
  });
});

describe('mapConnectArgs', () => {
  it('maps by position after the version, like guacd', () => {
    expect(
      mapConnectArgs(['VERSION_1_5_0', 'hostname', 'port'], ['VERSION_1_3_0', 'h', '5900']),
    ).toEqual(
      new Map([
        ['hostname', 'h'],
        ['port', '5900'],
      ]),
    );
    // An old client may send an empty version; guacd treats it as 1.0.0 and maps the rest.
    expect(mapConnectArgs(['VERSION_1_5_0', 'hostname'], ['', 'h'])).toEqual(
      new Map([['hostname', 'h']]),
    );
    // Without a version in args (guacd before 1.1.0) every position is a parameter.
    expect(mapConnectArgs(['hostname', 'port'], ['h', '1'])).toEqual(
      new Map([
        ['hostname', 'h'],
        ['port', '1'],
      ]),
    );
  });

  it('refuses a connect with the wrong number of values, as guacd does', () => {
    expect(() =>
      mapConnectArgs(['VERSION_1_5_0', 'hostname', 'port'], ['VERSION_1_5_0', 'h']),
    ).toThrow(GuacProtocolError);
    expect(() =>
      mapConnectArgs(['VERSION_1_5_0', 'hostname'], ['VERSION_1_5_0', 'h', 'extra']),
    ).toThrow(/carries 3 values but 'args' named 2/);
  });
});
