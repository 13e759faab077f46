// GuacConnection over real TCP sockets on loopback: instruction flow both ways, faults that
// close only the offending connection, handshake-style waiting, and queueing.

import { afterEach, describe, expect, it } from 'vitest';
import { GuacConnection } from './connection.js';
import { encodeInstruction } from './encoder.js';
import type { GuacInstruction } from './parser.js';
import { GuacProtocolError, GuacStatus } from './status.js';
import { closed, readAll, socketPair, type SocketPair } from './test-support/socketPair.js';

const pairs: SocketPair[] = [];
async function pair(): Promise<SocketPair> {
  const p = await socketPair();
  pairs.push(p);
  return p;
}
afterEach(async () => {
  await Promise.all(pairs.splice(0).map((p) => p.close()));
});

function collect(conn: GuacConnection): GuacInstruction[] {
  const seen: GuacInstruction[] = [];
  conn.on('instruction', (i) => seen.push(i));
  return seen;
}

function nextError(conn: GuacConnection): Promise<Error> {
  return new Promise((resolve) => conn.once('error', resolve));
}

function nextClose(conn: GuacConnection): Promise<void> {
  return new Promise((resolve) => conn.once('close', resolve));
}

async function until(condition: () => boolean, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

describe('GuacConnection over loopback TCP', () => {
  it('carries instructions both ways, including a 1 MB blob and astral characters', async () => {
    const { client, server } = await pair();
    const a = new GuacConnection(client);
    const b = new GuacConnection(server);
    const atB = collect(b);
    const atA = collect(a);
    const blob = Buffer.alloc(786_432, 0x42).toString('base64');
    a.send('clipboard', 0, 'text/plain');
    a.send('blob', 0, 'héllo 😀 wörld');
    a.send('blob', 1, blob);
    b.send('sync', 42);
    await until(() => atB.length === 3 && atA.length === 1);
    expect(atB).toEqual([
      { opcode: 'clipboard', args: ['0', 'text/plain'] },
      { opcode: 'blob', args: ['0', 'héllo 😀 wörld'] },
      { opcode: 'blob', args: ['1', blob] },
    ]);
    expect(atA).toEqual([{ opcode: 'sync', args: ['42'] }]);
  });

  it('on malformed input emits a GuacProtocolError, closes that socket, and the process carries on', async () => {
    const bad = await pair();
    const good = await pair();
    const victim = new GuacConnection(bad.server);
    const bystander = new GuacConnection(good.server);
    const seenByVictim = collect(victim);
    const seenByBystander = collect(bystander);
    const error = nextError(victim);
    const closedEvent = nextClose(victim);
    const peerSaw = readAll(bad.client);

    // Two good instructions, garbage, then something that would parse if anything were read.
    bad.client.write('3.nop;4.sync,1.1;4.size,x.0;' + encodeInstruction('key', 65, 1));
    const fault = await error;
    expect(fault).toBeInstanceOf(GuacProtocolError);
    expect((fault as GuacProtocolError).status).toBe(GuacStatus.CLIENT_BAD_REQUEST);
    expect(fault.message).toMatch(/found 'x' where an element length/);
    await closedEvent;
    await peerSaw; // the peer's socket closed too
    expect(seenByVictim).toEqual([
      { opcode: 'nop', args: [] },
      { opcode: 'sync', args: ['1'] },
    ]);
    expect(victim.isClosed).toBe(true);
    expect(victim.send('nop')).toBe(false);

    // The other connection is untouched.
    good.client.write(encodeInstruction('mouse', 1, 2, 0));
    await until(() => seenByBystander.length === 1);
    expect(seenByBystander).toEqual([{ opcode: 'mouse', args: ['1', '2', '0'] }]);
  });

  it('without an error listener, a fault still only closes the connection', async () => {
    const { client, server } = await pair();
    const conn = new GuacConnection(server);
    const closedEvent = nextClose(conn);
    client.write('99999999999999');
    await closedEvent;
    expect(conn.isClosed).toBe(true);
  });

  it('refuses an oversized instruction from the peer with CLIENT_OVERRUN', async () => {
    const { client, server } = await pair();
    const conn = new GuacConnection(server, { maxInstructionCodePoints: 1000 });
    const error = nextError(conn);
    client.write(encodeInstruction('blob', 0, 'A'.repeat(2000)));
    expect(await error).toMatchObject({ status: GuacStatus.CLIENT_OVERRUN });
  });

  it("lets the 'error' listener send a final error instruction before the socket closes", async () => {
    const { client, server } = await pair();
    const conn = new GuacConnection(server);
    conn.on('error', (error) => {
      const status = error instanceof GuacProtocolError ? error.status : GuacStatus.SERVER_ERROR;
      conn.send('error', 'Malformed instruction; reconnect.', status);
    });
    const peerSaw = readAll(client);
    client.write('4.size,x;');
    expect(await peerSaw).toBe(
      encodeInstruction('error', 'Malformed instruction; reconnect.', 768),
    );
  });

  it('reports a peer that ends the stream in the middle of an instruction', async () => {
    const { client, server } = await pair();
    const conn = new GuacConnection(server);
    const error = nextError(conn);
    client.end('4.size,1.0,');
    expect((await error).message).toMatch(/middle of an instruction/);
  });

  it('a clean end from the peer closes without an error', async () => {
    const { client, server } = await pair();
    const conn = new GuacConnection(server);
    const errors: Error[] = [];
    conn.on('error', (e) => errors.push(e));
    const seen = collect(conn);
    const closedEvent = nextClose(conn);
    client.end('10.disconnect;');
    await closedEvent;
    expect(seen).toEqual([{ opcode: 'disconnect', args: [] }]);
    expect(errors).toEqual([]);
  });

  it('turns an exception thrown by an instruction listener into an error on that connection', async () => {
    const { client, server } = await pair();
    const conn = new GuacConnection(server);
    conn.on('instruction', () => {
      throw new Error('listener bug');
    });
    const error = nextError(conn);
    client.write('3.nop;');
    expect((await error).message).toBe('listener bug');
    await closed(server);
  });
});

describe('GuacConnection.nextInstruction', () => {
  it('returns instructions in order, queueing those that arrive in one chunk', async () => {
    const { client, server } = await pair();
    const conn = new GuacConnection(client);
    server.write(
      '4.args,13.VERSION_1_5_0,8.hostname;5.ready,5.$abcd;4.size,1.0,3.640,3.480;4.sync,1.1;',
    );
    expect(await conn.nextInstruction('args', 2000)).toEqual({
      opcode: 'args',
      args: ['VERSION_1_5_0', 'hostname'],
    });
    expect(await conn.nextInstruction('ready', 2000)).toEqual({ opcode: 'ready', args: ['$abcd'] });
    // Attached late: still gets what was queued, in order.
    const seen = collect(conn);
    await until(() => seen.length === 2);
    expect(seen.map((i) => i.opcode)).toEqual(['size', 'sync']);
    server.write('3.nop;');
    await until(() => seen.length === 3);
  });

  it("rejects with the peer's own message and status when it answers with error", async () => {
    const { client, server } = await pair();
    const conn = new GuacConnection(client);
    server.write(encodeInstruction('error', 'Protocol "rdp" is not supported; use vnc.', 256));
    await expect(conn.nextInstruction('args', 2000)).rejects.toMatchObject({
      name: 'GuacProtocolError',
      message: 'Protocol "rdp" is not supported; use vnc.',
      status: 256,
    });
  });

  it('rejects an unexpected opcode with CLIENT_BAD_REQUEST', async () => {
    const { client, server } = await pair();
    const conn = new GuacConnection(server);
    client.write('5.mouse,1.1,1.1;');
    await expect(conn.nextInstruction('select', 2000)).rejects.toMatchObject({
      status: GuacStatus.CLIENT_BAD_REQUEST,
      message: "Expected a 'select' instruction but received 'mouse'.",
    });
  });

  it('times out with CLIENT_TIMEOUT and leaves the connection usable', async () => {
    const { client, server } = await pair();
    const conn = new GuacConnection(server);
    await expect(conn.nextInstruction('select', 50)).rejects.toMatchObject({
      status: GuacStatus.CLIENT_TIMEOUT,
    });
    expect(conn.isClosed).toBe(false);
    client.write('6.select,3.vnc;');
    expect(await conn.nextInstruction('select', 2000)).toEqual({ opcode: 'select', args: ['vnc'] });
  });

  it('rejects pending and later calls when the peer closes', async () => {
    const { client, server } = await pair();
    const conn = new GuacConnection(server);
    const pending = conn.nextInstruction('select');
    client.destroy();
    await expect(pending).rejects.toMatchObject({ status: GuacStatus.RESOURCE_CLOSED });
    await expect(conn.nextInstruction()).rejects.toBeInstanceOf(GuacProtocolError);
  });

  it('rejects pending calls with the parse fault', async () => {
    const { client, server } = await pair();
    const conn = new GuacConnection(server);
    const pending = conn.nextInstruction('select', 2000);
    client.write('6.select,3.vnc!');
    await expect(pending).rejects.toMatchObject({
      status: GuacStatus.CLIENT_BAD_REQUEST,
      message: /found '!'/,
    });
  });

  it('pauses reading while instructions wait for a consumer, and resumes after', async () => {
    const { client, server } = await pair();
    const conn = new GuacConnection(server);
    client.write('3.nop;');
    await until(() => server.isPaused());
    expect(await conn.nextInstruction()).toEqual({ opcode: 'nop', args: [] });
    expect(server.isPaused()).toBe(false);
  });
});
