// How the tunnel fails, with real parts: an unreachable VNC desktop, a desktop that dies under
// an open tunnel, an unreachable guacd, and upgrade requests the tunnel must refuse. In each
// case the browser must learn the Guacamole status from the close reason. Tunnels are opened
// with real tickets of a signed-in person (see tunnel.access.test.ts for who may open one).
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  freePort,
  startGateway,
  startLocalDesktop,
  type UnixGateway,
} from '@overlay-companion/gateway';
import { GuacStatus } from '@overlay-companion/guac';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ConnectionConfig, GuacdAddress } from '../config.js';
import { silentLogger } from '../logger.js';
import { startBridge, type RunningBridge } from '../bridge.js';
import { startTestAccess, type TestAccess } from '../testing/testAccess.js';
import { TunnelClient, refusedUpgrade } from '../testing/tunnelClient.js';
import { eventually } from '@overlay-companion/gateway/testing';
import { statusFromClose } from './closeStatus.js';

let workDir: string;
let gateway: UnixGateway;
let fixture: TestAccess;
const cleanups: Array<() => Promise<unknown>> = [];

async function bridgeFor(
  connection: ConnectionConfig,
  guacd: GuacdAddress = { path: gateway.path },
): Promise<RunningBridge> {
  const bridge = await startBridge(
    { port: 0, webRoot: workDir, guacd, connection },
    { access: fixture.access },
  );
  cleanups.push(() => bridge.close());
  return bridge;
}

async function openTunnel(bridge: RunningBridge, query?: string): Promise<TunnelClient> {
  const client = await TunnelClient.open(bridge.url, await fixture.ticket('tunnel'), query);
  cleanups.push(() => client.close());
  return client;
}

/** A gateway of its own on a Unix socket, allowed to reach `rfbPath` (as serve starts it). */
async function ownGateway(name: string, rfbPath: string): Promise<UnixGateway> {
  const started = await startGateway({
    path: join(workDir, `${name}.sock`),
    vncUnixSockets: [rfbPath],
    logger: silentLogger(),
  });
  cleanups.push(() => started.close());
  return started;
}

beforeAll(async () => {
  workDir = await mkdtemp(join(tmpdir(), 'oc-tunnel-fail-'));
  gateway = await startGateway({ path: join(workDir, 'gateway.sock'), logger: silentLogger() });
  fixture = await startTestAccess();
});

afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
  await gateway?.close();
  await fixture?.close();
  await rm(workDir, { recursive: true, force: true });
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
    await eventually('the bridge to forget the tunnel', () => bridge.tunnels.size === 0, 5000);
  });

  it('relays the error and closes the browser when the desktop dies under an open tunnel', async () => {
    const desktop = await startLocalDesktop({ windowManager: false });
    cleanups.push(() => desktop.stop());
    const desktopGateway = await ownGateway('dies', desktop.rfbPath);
    const bridge = await bridgeFor(
      { protocol: 'vnc', params: { hostname: desktop.rfbPath } },
      { path: desktopGateway.path },
    );
    const client = await openTunnel(bridge);
    await client.waitForOpcode('ready');
    await client.waitForOpcode('img');
    const connectionId = bridge.tunnels.connectionIds()[0];
    expect(desktopGateway.connectionIds()).toContain(connectionId);
    await desktop.stop();
    const closed = await client.closed;
    const error = client.instructions.find((i) => i.opcode === 'error');
    expect(error, 'an error instruction before the close').toBeDefined();
    expect(statusFromClose(closed.code, closed.reason)).toBe(Number(error?.args[1]));
    expect(closed.reason).toMatch(/^5\d\d /);
    await eventually(
      'the gateway to drop it',
      () => !desktopGateway.connectionIds().includes(connectionId ?? ''),
      5000,
    );
    await eventually('the bridge to forget the tunnel', () => bridge.tunnels.size === 0, 5000);
  });

  it('closes the browser when the guacd side ends the connection', async () => {
    // A guacd-compatible server over TCP that goes away, as a real guacd (`--guacd`) does when
    // it restarts. (serve's embedded gateway on its Unix socket stops only after the bridge.)
    const desktop = await startLocalDesktop({ windowManager: false });
    cleanups.push(() => desktop.stop());
    const tcpGateway = await startGateway({
      host: '127.0.0.1',
      port: 0,
      vncUnixSockets: [desktop.rfbPath],
      logger: silentLogger(),
    });
    cleanups.push(() => tcpGateway.close());
    const bridge = await bridgeFor(
      { protocol: 'vnc', params: { hostname: desktop.rfbPath } },
      { host: tcpGateway.host, port: tcpGateway.port },
    );
    const client = await openTunnel(bridge);
    await client.waitForOpcode('img');
    await tcpGateway.close();
    const closed = await client.closed;
    // The gateway ends its connections with `disconnect` (guacd does the same on shutdown);
    // a clean end is status 0 / code 1000, an `error` first would set the status instead.
    const error = client.instructions.find((i) => i.opcode === 'error');
    const expected = error ? Number(error.args[1]) : GuacStatus.SUCCESS;
    expect(statusFromClose(closed.code, closed.reason)).toBe(expected);
    expect(closed.code).toBe(expected === 0 ? 1000 : 4000 + expected);
    await eventually('the bridge to forget the tunnel', () => bridge.tunnels.size === 0, 5000);
  });

  it('closes the browser at once when a gateway on a Unix socket goes away under a busy tunnel', async () => {
    // Over a Unix socket the bridge's next write fails (EPIPE) while reading the browser is
    // paused for that very write; the browser must still get its close at once, not after
    // ws's 30 s close timeout.
    const desktop = await startLocalDesktop({ windowManager: false });
    cleanups.push(() => desktop.stop());
    const endingGateway = await ownGateway('ends', desktop.rfbPath);
    const bridge = await bridgeFor(
      { protocol: 'vnc', params: { hostname: desktop.rfbPath } },
      { path: endingGateway.path },
    );
    const client = await openTunnel(bridge);
    await client.waitForOpcode('img');
    const goneAt = Date.now();
    await endingGateway.close();
    const closed = await client.closed;
    expect(Date.now() - goneAt).toBeLessThan(5000);
    const status = statusFromClose(closed.code, closed.reason);
    expect(closed.code).toBe(status === 0 ? 1000 : 4000 + status);
    await eventually('the bridge to forget the tunnel', () => bridge.tunnels.size === 0, 5000);
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

  it('tells the browser when the gateway socket is gone', async () => {
    const bridge = await bridgeFor(
      { protocol: 'vnc', params: { hostname: '127.0.0.1', port: '5900' } },
      { path: join(workDir, 'no-such-gateway.sock') },
    );
    const client = await openTunnel(bridge);
    const closed = await client.closed;
    expect(closed.code).toBe(4000 + GuacStatus.UPSTREAM_NOT_FOUND);
    const error = client.instructions.find((i) => i.opcode === 'error');
    expect(error?.args[0]).toContain('no-such-gateway.sock');
  });

  it('refuses upgrades without the guacamole subprotocol, and unknown WebSocket paths', async () => {
    const bridge = await bridgeFor({
      protocol: 'vnc',
      params: { hostname: '127.0.0.1', port: '5900' },
    });
    const ticket = await fixture.ticket('tunnel');
    const noProtocol = await refusedUpgrade(bridge.url, `/tunnel?ticket=${ticket}`);
    expect(noProtocol.status).toBe(400);
    expect(noProtocol.body).toContain('subprotocol "guacamole"');
    const unknown = await refusedUpgrade(bridge.url, '/ws/nothing', { protocol: 'guacamole' });
    expect(unknown.status).toBe(404);
    expect(unknown.body).toContain('/tunnel');
  });
});
