// /readyz and /metrics on a real bridge (loopback port, SQLite store): /readyz follows the desktop
// server — the embedded gateway on its Unix socket and a guacd-style TCP server — going away and
// coming back, and the database closing, with reasons that name no host, port or path; /metrics
// answers loopback only without OC_METRICS_TOKEN, never a request a proxy forwarded, and only the
// bearer token when one is set.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startGateway, type TcpGateway, type UnixGateway } from '@overlay-companion/gateway';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { silentLogger } from '../logger.js';
import { BridgeMetrics } from '../metrics/bridgeMetrics.js';
import { startBridge, type RunningBridge } from '../bridge.js';
import { startTestAccess, type TestAccess } from '../testing/testAccess.js';
import { registerSecret } from '../testing/testLogs.js';
import { NOT_READY } from './readiness.js';
import { readyz, readyzBecomes } from './testing/readyz.js';

async function bridgeOn(
  fixture: TestAccess,
  guacd: { path: string } | { host: string; port: number },
  extras: { metrics?: BridgeMetrics; metricsToken?: string; metricsOpenLoopback?: boolean } = {},
): Promise<RunningBridge> {
  return startBridge(
    {
      host: '127.0.0.1',
      port: 0,
      dataDir: fixture.dataDir,
      webRoot: join(fixture.dataDir, 'no-web-build'),
      guacd,
      connection: { protocol: 'vnc', params: {} },
    },
    { access: fixture.access, logger: silentLogger(), ...extras },
  );
}

describe('/readyz', () => {
  let fixture: TestAccess;
  let runDir: string;
  beforeAll(async () => {
    fixture = await startTestAccess();
    runDir = await mkdtemp(join(tmpdir(), 'oc-readyz-'));
  });
  afterAll(async () => {
    await fixture.close();
    await rm(runDir, { recursive: true, force: true });
  });

  it('follows the embedded gateway (Unix socket) going away and coming back', async () => {
    const path = join(runDir, 'gateway.sock');
    let gateway: UnixGateway = await startGateway({ path, logger: silentLogger() });
    const bridge = await bridgeOn(fixture, { path });
    try {
      expect(await readyz(bridge)).toEqual({ status: 200, text: 'ready' });
      await gateway.close();
      const down = await readyzBecomes(bridge, 503);
      expect(down.text).toBe(`not ready: ${NOT_READY.desktop}`);
      expect(down.text).not.toContain(runDir);
      gateway = await startGateway({ path, logger: silentLogger() });
      expect((await readyzBecomes(bridge, 200)).text).toBe('ready');
      // /healthz only says the process answers, whatever the desktop does.
      await gateway.close();
      await readyzBecomes(bridge, 503);
      const health = await fetch(new URL('healthz', bridge.url));
      expect([health.status, await health.text()]).toEqual([200, 'ok']);
    } finally {
      await bridge.close();
      await gateway.close();
    }
  });

  it('follows a guacd-style TCP server going away and coming back', async () => {
    let gateway: TcpGateway = await startGateway({ port: 0, logger: silentLogger() });
    const port = gateway.port;
    const bridge = await bridgeOn(fixture, { host: '127.0.0.1', port });
    try {
      expect((await readyz(bridge)).status).toBe(200);
      await gateway.close();
      const down = await readyzBecomes(bridge, 503);
      expect(down.text).not.toContain(String(port));
      gateway = await startGateway({ port, logger: silentLogger() });
      await readyzBecomes(bridge, 200);
    } finally {
      await bridge.close();
      await gateway.close();
    }
  });

  it('is not ready once the database is closed', async () => {
    const own = await startTestAccess();
    const path = join(runDir, 'db-gateway.sock');
    const gateway = await startGateway({ path, logger: silentLogger() });
    const bridge = await bridgeOn(own, { path });
    try {
      expect((await readyz(bridge)).status).toBe(200);
      await own.store.close();
      expect((await readyzBecomes(bridge, 503)).text).toBe(`not ready: ${NOT_READY.database}`);
    } finally {
      await bridge.close();
      await gateway.close();
      await own.close();
    }
  });
});

describe('/metrics access', () => {
  let fixture: TestAccess;
  beforeAll(async () => {
    fixture = await startTestAccess();
  });
  afterAll(async () => {
    await fixture.close();
  });
  const nowhere = { host: '127.0.0.1', port: 9 };

  it('refuses a local caller without a token by default (tunnel byte counts time key presses)', async () => {
    const bridge = await bridgeOn(fixture, nowhere, { metrics: new BridgeMetrics() });
    try {
      const direct = await fetch(new URL('metrics', bridge.url));
      expect(direct.status).toBe(403);
      expect(await direct.text()).toMatch(
        /OC_METRICS_TOKEN.*OC_METRICS_OPEN_LOOPBACK|OC_METRICS_OPEN_LOOPBACK.*OC_METRICS_TOKEN/s,
      );
    } finally {
      await bridge.close();
    }
  });

  it('answers loopback without a token once opted in, but never a request a proxy forwarded', async () => {
    const bridge = await bridgeOn(fixture, nowhere, {
      metrics: new BridgeMetrics(),
      metricsOpenLoopback: true,
    });
    try {
      const direct = await fetch(new URL('metrics', bridge.url));
      expect(direct.status).toBe(200);
      expect(direct.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
      expect(await direct.text()).toMatch(/^# HELP oc_tool_calls_total /m);
      for (const header of ['X-Forwarded-For', 'Forwarded', 'X-Real-IP']) {
        const forwarded = await fetch(new URL('metrics', bridge.url), {
          headers: { [header]: header === 'Forwarded' ? 'for=203.0.113.9' : '203.0.113.9' },
        });
        expect(forwarded.status, header).toBe(403);
        expect(await forwarded.text()).toMatch(/OC_METRICS_TOKEN/);
      }
    } finally {
      await bridge.close();
    }
  });

  it('wants the bearer token when OC_METRICS_TOKEN is set', async () => {
    const token = 'metrics-token-0123456789abcdef';
    registerSecret(token);
    const bridge = await bridgeOn(fixture, nowhere, {
      metrics: new BridgeMetrics({ processMetrics: false }),
      metricsToken: token,
    });
    try {
      const url = new URL('metrics', bridge.url);
      const bare = await fetch(url);
      expect(bare.status).toBe(401);
      expect(bare.headers.get('www-authenticate')).toMatch(/^Bearer/);
      const wrong = await fetch(url, { headers: { Authorization: `Bearer ${token}x` } });
      expect(wrong.status).toBe(401);
      const right = await fetch(url, {
        headers: { Authorization: `Bearer ${token}`, 'X-Forwarded-For': '203.0.113.9' },
      });
      expect(right.status).toBe(200);
      expect(await right.text()).not.toContain(token);
    } finally {
      await bridge.close();
    }
  });
});
