// TLS on the gateway pool's links, with real parts: certificates made by the openssl CLI, one
// Xvnc desktop with a VNC password (loopback TCP), our gateway serving mutual TLS with the pool
// secret, Apache guacd started with -C/-K, and bridges given them as gateways:// and guacds://
// (parsed from --gateways and OC_POOL_* as the CLI does). A desktop opens through each and the
// pointer lands where the window moved it (checked from X); the bytes of every link, captured
// by a TCP proxy in between, hold neither the pool secret nor the VNC password — while the same
// capture of a plaintext link holds both (so the capture can see them). Members whose TLS fails
// — another CA's certificate, a certificate for another name, a plaintext gateway written
// gateways:// — are out of the pool with words in the log and /readyz, the window opens on the
// good member, and the plaintext gateway never receives the secret. A bridge without a client
// certificate is refused by the mutual-TLS gateway, which is then out with that reason.
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { connect, createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import {
  startGateway,
  startLocalDesktop,
  type TcpGateway,
  type TcpLocalDesktop,
} from '@overlay-companion/gateway';
import {
  makeThrowawayPki,
  type ThrowawayPki,
  eventually,
} from '@overlay-companion/gateway/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startBridge, type RunningBridge } from '../bridge.js';
import { parseGatewayPool } from '../cli/gatewayPoolOptions.js';
import type { BridgeConfigInput } from '../config.js';
import { loggerOptions } from '../logger.js';
import { startTestAccess, type TestAccess } from '../testing/testAccess.js';
import { openShowing, pointerLands } from '../testing/gatewayPoolParts.js';
import { skipOrFail, startTestGuacd, type TestGuacd } from '../testing/guacd.js';
import { registerSecret } from '../testing/testLogs.js';
import { TunnelClient } from '../testing/tunnelClient.js';
import { TLS_FAILURES } from './poolTls.js';

const SECRET = randomBytes(32).toString('base64url');
const VNC_PASSWORD = randomBytes(6).toString('base64url');
registerSecret(SECRET);

/** A TCP proxy that keeps every byte it passes, both ways (what a wire tap would see). */
class CaptureProxy {
  private constructor(
    private readonly server: Server,
    readonly port: number,
    private readonly chunks: Buffer[],
    private readonly sockets: Set<Socket>,
  ) {}

  static async start(target: { host: string; port: number }): Promise<CaptureProxy> {
    const to = { host: target.host, port: target.port };
    const chunks: Buffer[] = [];
    const sockets = new Set<Socket>();
    const server = createServer((client) => {
      const upstream = connect(to);
      for (const [from, into] of [
        [client, upstream],
        [upstream, client],
      ] as const) {
        sockets.add(from);
        from.on('data', (chunk: Buffer) => {
          chunks.push(chunk);
          into.write(chunk);
        });
        from.on('error', () => into.destroy());
        from.on('close', () => into.destroy());
      }
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return new CaptureProxy(server, (server.address() as AddressInfo).port, chunks, sockets);
  }

  get bytes(): Buffer {
    return Buffer.concat(this.chunks);
  }

  close(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}

describe('TLS on the links of the gateway pool', () => {
  let dir: string;
  let pki: ThrowawayPki;
  let desktop: TcpLocalDesktop;
  let fixture: TestAccess;
  let guacd: TestGuacd | undefined;
  const gateways: TcpGateway[] = [];
  const proxies: CaptureProxy[] = [];
  const bridges: RunningBridge[] = [];
  const clients: TunnelClient[] = [];

  async function gateway(tls?: { cert: Buffer; key: Buffer }, mutual = false) {
    const started = await startGateway({
      port: 0,
      poolSecret: SECRET,
      ...(tls === undefined ? {} : { tls: mutual ? { ...tls, clientCa: pki.ca } : tls }),
      logger: pino({ level: 'silent' }),
    });
    gateways.push(started);
    return started;
  }

  async function tap(to: { host: string; port: number }): Promise<CaptureProxy> {
    const proxy = await CaptureProxy.start(to);
    proxies.push(proxy);
    return proxy;
  }

  /** A bridge whose pool is `list` (--gateways), with OC_POOL_* as given; its log lines. */
  async function poolBridge(
    list: string,
    env: NodeJS.ProcessEnv,
  ): Promise<{ bridge: RunningBridge; logged: string[] }> {
    const gatewayPool = parseGatewayPool(list, { OC_GATEWAY_SECRET: SECRET, ...env });
    const first = gatewayPool!.members[0]!;
    const logged: string[] = [];
    const logger = pino(loggerOptions('pool-tls', 'info'), {
      write: (line: string) => logged.push(line),
    });
    const config: BridgeConfigInput = {
      port: 0,
      webRoot: tmpdir(),
      guacd: { host: first.host, port: first.port },
      connection: {
        protocol: 'vnc',
        params: { hostname: desktop.host, port: String(desktop.port), password: VNC_PASSWORD },
      },
      tunnel: { gatewayPool },
    };
    const bridge = await startBridge(config, { access: fixture.access, logger });
    bridges.push(bridge);
    return { bridge, logged };
  }

  async function window(on: RunningBridge): Promise<TunnelClient> {
    const client = await openShowing(on.url, await fixture.ticket('tunnel'));
    clients.push(client);
    return client;
  }

  const trusted = (): NodeJS.ProcessEnv => ({
    OC_POOL_CA: pki.caFile,
    OC_POOL_CLIENT_CERT: pki.client.certFile,
    OC_POOL_CLIENT_KEY: pki.client.keyFile,
  });

  async function readyz(bridge: RunningBridge): Promise<string> {
    return (await fetch(new URL('readyz', bridge.url))).text();
  }

  /** Waits until the members at these 1-based positions are out, and returns /readyz. */
  async function outAt(bridge: RunningBridge, positions: number[]): Promise<string> {
    let text = '';
    await eventually(
      `members ${positions.join(', ')} out in /readyz`,
      async () => {
        text = await readyz(bridge);
        return positions.every((p) => text.includes(`gateway ${String(p)} of`));
      },
      15_000,
    ).catch(() => undefined);
    return text;
  }

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'oc-pool-tls-'));
    pki = await makeThrowawayPki(dir);
    desktop = await startLocalDesktop({
      windowManager: false,
      rfbTcp: true,
      password: VNC_PASSWORD,
    });
    fixture = await startTestAccess();
  }, 60_000);

  afterAll(async () => {
    await Promise.all(clients.splice(0).map((c) => c.close()));
    for (const b of bridges) await b.close();
    for (const p of proxies) await p.close();
    for (const g of gateways) await g.close();
    await guacd?.stop();
    await fixture?.close();
    await desktop?.stop();
    await rm(dir, { recursive: true, force: true });
  }, 60_000);

  it('opens a desktop through our gateway over mutual TLS; the wire holds no secret', async () => {
    const tlsGateway = await gateway(pki.server, true);
    const wire = await tap(tlsGateway);
    // The same desktop through a plaintext link, for the capture's own check.
    const plainWire = await tap(await gateway());
    const { bridge } = await poolBridge(`gateways://localhost:${String(wire.port)}`, trusted());
    const client = await window(bridge);
    expect(tlsGateway.connectionIds()).toHaveLength(1);
    await pointerLands(client, desktop.env, 123, 45);
    await client.close();

    const { bridge: plain } = await poolBridge(`gateway://127.0.0.1:${String(plainWire.port)}`, {});
    const plainClient = await window(plain);
    await pointerLands(plainClient, desktop.env, 67, 89);
    await plainClient.close();

    expect(plainWire.bytes.includes(SECRET)).toBe(true);
    expect(plainWire.bytes.includes(VNC_PASSWORD)).toBe(true);
    expect(wire.bytes.length).toBeGreaterThan(2_000);
    expect(wire.bytes.includes(SECRET)).toBe(false);
    expect(wire.bytes.includes(VNC_PASSWORD)).toBe(false);
    expect(wire.bytes.includes('select')).toBe(false);
  }, 90_000);

  it('opens a desktop through Apache guacd started with -C/-K', async (ctx) => {
    const started = await startTestGuacd(['-C', pki.server.certFile, '-K', pki.server.keyFile]);
    if ('skip' in started) return ctx.skip(skipOrFail('guacd', started.skip));
    guacd = started;
    const wire = await tap({ host: guacd.host, port: guacd.port });
    const { bridge } = await poolBridge(`guacds://127.0.0.1:${String(wire.port)}`, {
      OC_POOL_CA: pki.caFile,
    });
    const client = await window(bridge);
    await pointerLands(client, desktop.env, 210, 140);
    await client.close();
    expect(wire.bytes.length).toBeGreaterThan(2_000);
    expect(wire.bytes.includes(VNC_PASSWORD)).toBe(false);
    expect(wire.bytes.includes('select')).toBe(false);
  }, 90_000);

  it('takes members whose TLS fails out of the pool, in words, and never falls back', async () => {
    const stranger = await gateway(pki.strangerServer);
    const misnamed = await gateway(pki.misnamedServer);
    const plaintext = await gateway();
    const plainWire = await tap(plaintext);
    const good = await gateway(pki.server, true);
    const list = [
      `gateways://127.0.0.1:${String(stranger.port)}`,
      `gateways://127.0.0.1:${String(misnamed.port)}`,
      `gateways://127.0.0.1:${String(plainWire.port)}`,
      `gateways://127.0.0.1:${String(good.port)}`,
    ].join(',');
    const { bridge, logged } = await poolBridge(list, trusted());
    const text = await outAt(bridge, [1, 2, 3]);
    expect(text).toMatch(/^ready \(degraded: 3 of 4 gateways of the pool are out/);
    expect(text).toContain(`gateway 1 of 4 (overlay-companion gateway)`);
    expect(text).toContain(TLS_FAILURES.tlsUntrusted);
    expect(text).toContain(TLS_FAILURES.tlsName);
    expect(text).toContain(TLS_FAILURES.tlsPlaintext);
    expect(text).not.toContain('gateway 4 of');
    expect(text).not.toMatch(/127\.0\.0\.1|\d{4,5}/);
    const outLines = logged.filter((line) => line.includes('a gateway is out of the pool'));
    expect(outLines.join('\n')).toContain(TLS_FAILURES.tlsUntrusted);
    expect(outLines).toHaveLength(3);

    const client = await window(bridge);
    expect(good.connectionIds()).toHaveLength(1);
    for (const bad of [stranger, misnamed, plaintext]) expect(bad.connectionIds()).toEqual([]);
    await pointerLands(client, desktop.env, 31, 41);
    // The plaintext gateway saw ClientHellos, never the secret or the password.
    expect(plainWire.bytes.length).toBeGreaterThan(0);
    expect(plainWire.bytes.includes(SECRET)).toBe(false);
    expect(plainWire.bytes.includes(VNC_PASSWORD)).toBe(false);
    for (const line of logged) expect(line).not.toContain(SECRET);
  }, 90_000);

  it('is refused by a mutual-TLS gateway without a client certificate', async () => {
    const mutual = await gateway(pki.server, true);
    const { bridge } = await poolBridge(`gateways://127.0.0.1:${String(mutual.port)}`, {
      OC_POOL_CA: pki.caFile,
    });
    const client = await TunnelClient.open(bridge.url, await fixture.ticket('tunnel'));
    clients.push(client);
    const error = await client.waitForOpcode('error', { timeoutMs: 20_000 });
    expect(error.args[0]).toMatch(/No gateway of the pool|TLS/);
    expect(mutual.connectionIds()).toEqual([]);
    const text = await readyz(bridge);
    expect(text).toContain(TLS_FAILURES.tlsRefused);
  }, 60_000);
});
