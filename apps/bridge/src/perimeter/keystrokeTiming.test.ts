// Keystroke timing through /metrics: keys typed through a real tunnel (real bridge, embedded
// gateway, Xvnc desktop) must not step oc_tunnel_bytes_total{direction="to_desktop"} once per key,
// or anyone who may scrape learns a password's length and rhythm. Scraped after every key, the
// series stays put; only after the publication interval does it move, and then by whole steps.
// Also /metrics itself: refused to an unauthenticated local caller unless the operator opted in.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  startGateway,
  startLocalDesktop,
  type LocalDesktop,
  type UnixGateway,
} from '@overlay-companion/gateway';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { silentLogger } from '../logger.js';
import {
  BridgeMetrics,
  TUNNEL_BYTES_STEP,
  TUNNEL_FRAMES_STEP,
  TUNNEL_PUBLISH_MS,
} from '../metrics/bridgeMetrics.js';
import { startBridge, type RunningBridge } from '../bridge.js';
import { startTestAccess, type TestAccess } from '../testing/testAccess.js';
import { TunnelClient } from '../testing/tunnelClient.js';

const KEY_A = 0x61;
let workDir: string;
let desktop: LocalDesktop;
let gateway: UnixGateway;
let fixture: TestAccess;
let bridge: RunningBridge;
let skewMs = 0;
const metrics = new BridgeMetrics({ processMetrics: false, now: () => Date.now() + skewMs });

async function sample(series: string): Promise<number> {
  const { body } = await metrics.scrape();
  const line = body.split('\n').find((l) => l.startsWith(`${series} `));
  if (line === undefined) throw new Error(`no ${series} in:\n${body}`);
  return Number(line.slice(series.length + 1));
}

const TO_DESKTOP = 'oc_tunnel_bytes_total{direction="to_desktop"}';

beforeAll(async () => {
  workDir = await mkdtemp(join(tmpdir(), 'oc-keystroke-timing-'));
  desktop = await startLocalDesktop({ windowManager: false });
  gateway = await startGateway({
    path: join(workDir, 'gateway.sock'),
    vncUnixSockets: [desktop.rfbPath],
    logger: silentLogger(),
  });
  fixture = await startTestAccess();
  bridge = await startBridge(
    {
      port: 0,
      webRoot: workDir,
      guacd: { path: gateway.path },
      connection: { protocol: 'vnc', params: { hostname: desktop.rfbPath } },
    },
    { access: fixture.access, metrics },
  );
}, 60_000);

afterAll(async () => {
  await bridge?.close();
  await fixture?.close();
  await gateway?.close();
  await desktop?.stop();
  await rm(workDir, { recursive: true, force: true });
});

describe('tunnel byte counters and typing', () => {
  it('do not step once per key typed through the tunnel; they move later, by whole steps', async () => {
    const { session } = await fixture.access.sessions.create(fixture.admin, 'password', 'test');
    const issued = fixture.access.tickets.issue({
      personId: fixture.admin.id,
      sessionIdHash: session.idHash,
      socket: 'tunnel',
      headless: false,
    });
    if (!issued.ok) throw new Error(issued.message);
    const client = await TunnelClient.open(bridge.url, issued.ticket);
    try {
      await client.waitForOpcode('sync', { timeoutMs: 30_000 });
      const start = await sample(TO_DESKTOP);
      const framesAtStart = await sample('oc_tunnel_frames_total');
      const seen: number[] = [];
      for (let i = 0; i < 20; i++) {
        client.send('key', KEY_A, 1);
        client.send('key', KEY_A, 0);
        await new Promise((resolve) => setTimeout(resolve, 30));
        seen.push(await sample(TO_DESKTOP));
      }
      // Before the fix each key added its ~38 bytes here at once.
      expect(new Set(seen)).toEqual(new Set([start]));
      expect(await sample('oc_tunnel_frames_total')).toBe(framesAtStart);

      // Enough keys for a whole step, then the interval passes: the series moves, by steps.
      const keys = Math.ceil(TUNNEL_BYTES_STEP / 30);
      for (let i = 0; i < keys; i++) {
        client.send('key', KEY_A, 1);
        client.send('key', KEY_A, 0);
      }
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(await sample(TO_DESKTOP)).toBe(start);
      skewMs += TUNNEL_PUBLISH_MS;
      const after = await sample(TO_DESKTOP);
      expect(after).toBeGreaterThan(start);
      expect((after - start) % TUNNEL_BYTES_STEP).toBe(0);
      expect((await sample('oc_tunnel_frames_total')) % TUNNEL_FRAMES_STEP).toBe(0);
      const toBrowser = await sample('oc_tunnel_bytes_total{direction="to_browser"}');
      expect(toBrowser % TUNNEL_BYTES_STEP).toBe(0);
      // And at once again: nothing more until the next interval.
      client.send('key', KEY_A, 1);
      client.send('key', KEY_A, 0);
      expect(await sample(TO_DESKTOP)).toBe(after);
    } finally {
      await client.close();
    }
  }, 60_000);
});

describe('/metrics access on a real bridge', () => {
  it('refuses an unauthenticated local caller by default, and says how to open it', async () => {
    const answer = await fetch(new URL('metrics', bridge.url));
    expect(answer.status).toBe(403);
    const text = await answer.text();
    expect(text).toMatch(/OC_METRICS_TOKEN/);
    expect(text).toMatch(/OC_METRICS_OPEN_LOOPBACK=1/);
    expect(text).not.toMatch(/oc_tunnel_bytes_total/);
  });

  it('answers a direct loopback caller only when the operator opted in', async () => {
    const open = await startBridge(
      {
        port: 0,
        webRoot: workDir,
        guacd: { path: gateway.path },
        connection: { protocol: 'vnc', params: {} },
      },
      {
        access: fixture.access,
        metrics: new BridgeMetrics({ processMetrics: false }),
        metricsOpenLoopback: true,
      },
    );
    try {
      expect((await fetch(new URL('metrics', open.url))).status).toBe(200);
      const proxied = await fetch(new URL('metrics', open.url), {
        headers: { 'X-Forwarded-For': '203.0.113.9' },
      });
      expect(proxied.status).toBe(403);
    } finally {
      await open.close();
    }
  });
});
