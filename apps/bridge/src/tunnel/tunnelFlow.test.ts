// TunnelFlow on real sockets: a WebSocket pair (ws) stands for the browser's side, a TCP pair
// for guacd's. A browser that stops reading makes the tunnel stop reading guacd (and read it
// again once the browser has caught up); a guacd that stops reading makes the tunnel stop
// reading the browser until guacd's socket drains; a tunnel that ends while the browser is held
// back reads it again (else the browser's answer to the close frame would never be read).
import { once } from 'node:events';
import { createServer, connect, type AddressInfo, type Server, type Socket } from 'node:net';
import { pino } from 'pino';
import { afterEach, describe, expect, test } from 'vitest';
import { WebSocket, WebSocketServer } from 'ws';
import { GuacConnection } from '@overlay-companion/guac';
import { eventually } from '@overlay-companion/gateway/testing';
import { TunnelFlow } from './tunnelFlow.js';

const limits = { highWaterBytes: 256 * 1024, lowWaterBytes: 64 * 1024 };
/** Enough to fill the kernel's buffers on loopback many times over. */
const MAX_BYTES = 64 * 1024 * 1024;
const CHUNK = 'x'.repeat(256 * 1024);

const cleanups: (() => void | Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

function closeServer(server: Server | WebSocketServer): Promise<void> {
  return new Promise((resolve) => server.close(() => resolve()));
}

/** A TCP connection: the bridge's end (read by a GuacConnection) and guacd's end. */
async function guacdLink(): Promise<{ bridgeEnd: Socket; guacdEnd: Socket; conn: GuacConnection }> {
  const server = createServer();
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const accepted = once(server, 'connection') as Promise<[Socket]>;
  const bridgeEnd = connect((server.address() as AddressInfo).port, '127.0.0.1');
  const [guacdEnd] = await accepted;
  const conn = new GuacConnection(bridgeEnd);
  cleanups.push(async () => {
    bridgeEnd.destroy();
    guacdEnd.destroy();
    await closeServer(server);
  });
  return { bridgeEnd, guacdEnd, conn };
}

/** A WebSocket: the bridge's end and the browser's. */
async function browserLink(): Promise<{ bridgeWs: WebSocket; browser: WebSocket }> {
  const wss = new WebSocketServer({ port: 0, host: '127.0.0.1' });
  await once(wss, 'listening');
  const accepted = once(wss, 'connection') as Promise<[WebSocket]>;
  const browser = new WebSocket(`ws://127.0.0.1:${(wss.address() as AddressInfo).port}`);
  const [bridgeWs] = await accepted;
  await once(browser, 'open');
  cleanups.push(async () => {
    browser.terminate();
    bridgeWs.terminate();
    await closeServer(wss);
  });
  return { bridgeWs, browser };
}

async function tunnel() {
  const guacd = await guacdLink();
  const link = await browserLink();
  let ended = false;
  const flow = new TunnelFlow(link.bridgeWs, {
    limits,
    log: pino({ level: 'silent' }),
    ended: () => ended,
  });
  flow.connected(guacd.bridgeEnd, guacd.conn);
  return { ...guacd, ...link, flow, end: () => (ended = true) };
}

type Tunnel = Awaited<ReturnType<typeof tunnel>>;

/** guacd stops reading; input is sent until the tunnel stops reading the browser. */
function stallGuacd(t: Tunnel): void {
  t.guacdEnd.pause();
  let sent = 0;
  while (!t.bridgeWs.isPaused && sent < MAX_BYTES) {
    t.flow.toDesktop(CHUNK);
    sent += CHUNK.length;
  }
  expect(t.bridgeWs.isPaused).toBe(true);
}

describe('a tunnel’s flow control', () => {
  test('a browser that stops reading stops the reads from guacd until it catches up', async () => {
    const t = await tunnel();
    t.browser.pause();
    let sent = 0;
    while (!t.bridgeEnd.isPaused() && sent < MAX_BYTES) {
      t.flow.toBrowser(CHUNK);
      sent += CHUNK.length;
      // Lets the socket write what the kernel takes, as between two frames.
      await new Promise((resolve) => setImmediate(resolve));
    }
    expect(t.bridgeEnd.isPaused()).toBe(true);
    expect(t.bridgeWs.bufferedAmount).toBeGreaterThan(limits.highWaterBytes);
    t.browser.resume();
    await eventually('guacd is read again', () => !t.bridgeEnd.isPaused());
    expect(t.bridgeWs.bufferedAmount).toBeLessThanOrEqual(limits.lowWaterBytes);
  });

  test('a guacd that stops reading stops the reads from the browser until it drains', async () => {
    const t = await tunnel();
    stallGuacd(t);
    t.guacdEnd.resume();
    await eventually('the browser is read again', () => !t.bridgeWs.isPaused);
  });

  test('a tunnel ending while guacd holds the browser back reads the browser again', async () => {
    const t = await tunnel();
    stallGuacd(t);
    t.end();
    t.flow.ending();
    expect(t.bridgeWs.isPaused).toBe(false);
  });
});
