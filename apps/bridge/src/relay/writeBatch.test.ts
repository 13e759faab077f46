// turnWriteBatch over a real loopback TCP connection: writes made in one turn are held until the
// turn's end and then all arrive, in order; a later turn is held (and released) afresh; a socket
// destroyed while holding does not throw.
import { once } from 'node:events';
import { createServer, connect, type AddressInfo, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { turnWriteBatch } from './writeBatch.js';

const open: Array<{ close(): void }> = [];
afterEach(() => {
  for (const o of open.splice(0)) o.close();
});

async function pair(): Promise<{ client: Socket; received: () => string }> {
  let text = '';
  const server = createServer((s) => s.on('data', (d: Buffer) => (text += d.toString())));
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const client = connect((server.address() as AddressInfo).port, '127.0.0.1');
  await once(client, 'connect');
  open.push({ close: () => (client.destroy(), server.close()) });
  return { client, received: () => text };
}

const nextTurn = () => new Promise((resolve) => setImmediate(resolve));

describe('turnWriteBatch', () => {
  it("holds a turn's writes until the turn ends, then sends them all in order", async () => {
    const { client, received } = await pair();
    const hold = turnWriteBatch(client);
    for (const word of ['one ', 'two ', 'three']) {
      hold();
      client.write(word);
    }
    expect(client.writableCorked).toBe(1);
    expect(client.writableLength).toBe('one two three'.length);
    await nextTurn();
    expect(client.writableCorked).toBe(0);
    for (let i = 0; i < 100 && received() !== 'one two three'; i++) await nextTurn();
    expect(received()).toBe('one two three');

    hold();
    client.write(' four');
    expect(client.writableCorked).toBe(1);
    await nextTurn();
    expect(client.writableCorked).toBe(0);
  });

  it('releases a socket destroyed while holding without throwing', async () => {
    const { client } = await pair();
    const hold = turnWriteBatch(client);
    hold();
    client.write('lost');
    client.destroy();
    await nextTurn();
    expect(client.destroyed).toBe(true);
  });
});
