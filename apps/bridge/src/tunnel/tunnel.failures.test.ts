// How the tunnel fails, with real parts: an unreachable VNC desktop, a desktop that dies under
// an open tunnel, an unreachable guacd, and upgrade requests the tunnel must refuse. In each
// case the browser must learn the Guacamole status from the close reason.
import { request } from 'node:http';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  freePort,
  startGateway,
  startLocalDesktop,
  type Gateway,
} from '@overlay-companion/gateway';
import { GuacStatus } from '@overlay-companion/guac';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ConnectionConfig, HostPort } from '../config.js';
import { silentLogger } from '../logger.js';
import { startBridge, type RunningBridge } from '../server.js';
import { TunnelClient, eventually } from '../testing/tunnelClient.js';
import { statusFromClose } from './closeStatus.js';

let webRoot: string;
let gateway: Gateway;
const cleanups: Array<() => Promise<unknown>> = [];

async function bridgeFor(
  connection: ConnectionConfig,
  guacd: HostPort = gateway,
): Promise<RunningBridge> {
  const bridge = await startBridge({
    port: 0,
    webRoot,
    guacd: { host: guacd.host, port: guacd.port },
    connection,
  });
  cleanups.push(() => bridge.close());
  return bridge;
}

async function openTunnel(bridge: RunningBridge, query?: string): Promise<TunnelClient> {
  const client = await TunnelClient.open(bridge.url, query);
  cleanups.push(() => client.close());
  return client;
}

/** Sends a raw upgrade request and returns the HTTP status it was refused with. */
function refusedUpgrade(
  url: string,
  path: string,
  protocol?: string,
): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(new URL(path, url), {
      headers: {
        Connection: 'Upgrade',
        Upgrade: 'websocket',
        'Sec-WebSocket-Version': '13',
        'Sec-WebSocket-Key': Buffer.from('0123456789abcdef').toString('base64'),
        ...(protocol ? { 'Sec-WebSocket-Protocol': protocol } : {}),
      },
    });
    req.on('response', (res) => {
      let body = '';
      res.on('data', (chunk: Buffer) => (body += chunk.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('upgrade', () => reject(new Error('the upgrade was accepted')));
    req.on('error', reject);
    req.end();
  });
}

beforeAll(async () => {
  webRoot = await mkdtemp(join(tmpdir(), 'oc-tunnel-fail-'));
  gateway = await startGateway({ host: '127.0.0.1', port: 0, logger: silentLogger() });
});

afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
  await gateway?.close();
  await rm(webRoot, { recursive: true, force: true });
});

describe('tunnel failures', () => {
  it('passes the status of an unreachable VNC desktop to the browser in the close reason', async () => {
    const closedPort = await freePort();
    const bridge = await bridgeFor({
      protocol: 'vnc',
      params: { hostname: '127.0.0.1', port: String(closedPort) },
    });
    const client = await openTunnel(bridge);
    const closed = await client.closed;
    const error = client.instructions.find((i) => i.opcode === 'error');
    expect(error?.args[1]).toBe(String(GuacStatus.UPSTREAM_NOT_FOUND));
    expect(statusFromClose(closed.code, closed.reason)).toBe(GuacStatus.UPSTREAM_NOT_FOUND);
    expect(closed.code).toBe(4000 + GuacStatus.UPSTREAM_NOT_FOUND);
    expect(client.messages[0]?.text).toMatch(/^0\.,36\.[0-9a-f-]{36};$/);
    expect(client.framingErrors).toEqual([]);
    await eventually(() => bridge.tunnels.size === 0, 5000, 'the bridge to forget the tunnel');
  });

  it('relays the error and closes the browser when the desktop dies under an open tunnel', async () => {
    const desktop = await startLocalDesktop({ windowManager: false });
    cleanups.push(() => desktop.stop());
    const bridge = await bridgeFor({
      protocol: 'vnc',
      params: { hostname: desktop.host, port: String(desktop.port) },
    });
    const client = await openTunnel(bridge);
    const ready = await client.waitForOpcode('ready');
    await client.waitForOpcode('img');
    await desktop.stop();
    const closed = await client.closed;
    const error = client.instructions.find((i) => i.opcode === 'error');
    expect(error, 'an error instruction before the close').toBeDefined();
    expect(statusFromClose(closed.code, closed.reason)).toBe(Number(error?.args[1]));
    expect(closed.reason).toMatch(/^5\d\d /);
    await eventually(
      () => !gateway.connectionIds().includes(ready.args[0] ?? ''),
      5000,
      'the gateway to drop it',
    );
    await eventually(() => bridge.tunnels.size === 0, 5000, 'the bridge to forget the tunnel');
  });

  it('closes the browser when the guacd side ends the connection', async () => {
    const desktop = await startLocalDesktop({ windowManager: false });
    cleanups.push(() => desktop.stop());
    const ownGateway = await startGateway({ host: '127.0.0.1', port: 0, logger: silentLogger() });
    cleanups.push(() => ownGateway.close());
    const bridge = await bridgeFor(
      { protocol: 'vnc', params: { hostname: desktop.host, port: String(desktop.port) } },
      ownGateway,
    );
    const client = await openTunnel(bridge);
    await client.waitForOpcode('img');
    await ownGateway.close();
    const closed = await client.closed;
    // The gateway ends its connections with `disconnect` (guacd does the same on shutdown);
    // a clean end is status 0 / code 1000, an `error` first would set the status instead.
    const error = client.instructions.find((i) => i.opcode === 'error');
    const expected = error ? Number(error.args[1]) : GuacStatus.SUCCESS;
    expect(statusFromClose(closed.code, closed.reason)).toBe(expected);
    expect(closed.code).toBe(expected === 0 ? 1000 : 4000 + expected);
    await eventually(() => bridge.tunnels.size === 0, 5000, 'the bridge to forget the tunnel');
  });

  it('tells the browser when guacd itself cannot be reached', async () => {
    const bridge = await bridgeFor(
      { protocol: 'vnc', params: { hostname: '127.0.0.1', port: '5900' } },
      { host: '127.0.0.1', port: await freePort() },
    );
    const client = await openTunnel(bridge);
    const closed = await client.closed;
    expect(closed.code).toBe(4000 + GuacStatus.UPSTREAM_NOT_FOUND);
    const error = client.instructions.find((i) => i.opcode === 'error');
    expect(error?.args[0]).toMatch(/cannot reach the guacd-compatible server .*--guacd/);
  });

  it('refuses upgrades without the guacamole subprotocol, and unknown WebSocket paths', async () => {
    const bridge = await bridgeFor({
      protocol: 'vnc',
      params: { hostname: '127.0.0.1', port: '5900' },
    });
    const noProtocol = await refusedUpgrade(bridge.url, '/tunnel');
    expect(noProtocol.status).toBe(400);
    expect(noProtocol.body).toContain('subprotocol "guacamole"');
    const unknown = await refusedUpgrade(bridge.url, '/ws/nothing', 'guacamole');
    expect(unknown.status).toBe(404);
    expect(unknown.body).toContain('/tunnel');
  });
});
