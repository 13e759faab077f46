// Test support: a bridge whose desktop is reached through Apache guacd and a proxy the test can
// pause (stallProxy.ts) — guacd → proxy → Xvnc (our local desktop over TCP) or xrdp — for the
// stalled-link tests behind guacd. Each part is stopped by the `cleanups` the caller runs last
// first. A string instead of the stack is the reason to skip (guacd or xrdp missing; failed
// instead under OC_REQUIRE_GUACD=1).
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startLocalDesktop } from '@overlay-companion/gateway';
import type { ConnectionConfig } from '../config.js';
import { startBridge, type RunningBridge } from '../bridge.js';
import { RDP_DEFAULTS } from '../tunnel/upstream.js';
import { skipOrFail, startTestGuacd } from './guacd.js';
import { StallProxy } from './stallProxy.js';
import { startTestAccess, type TestAccess } from './testAccess.js';
import { startTestXrdp } from './xrdp.js';

export interface GuacdStallStack {
  bridge: RunningBridge;
  fixture: TestAccess;
  proxy: StallProxy;
}

export async function startGuacdStallStack(
  kind: 'vnc' | 'rdp',
  cleanups: Array<() => Promise<unknown>>,
): Promise<GuacdStallStack | string> {
  const guacd = await startTestGuacd();
  if ('skip' in guacd) return skipOrFail('guacd', guacd.skip);
  cleanups.push(() => guacd.stop());
  let server: { host: string; port: number };
  let params: Record<string, string>;
  if (kind === 'vnc') {
    const desktop = await startLocalDesktop({ windowManager: false, rfbTcp: true });
    cleanups.push(() => desktop.stop());
    server = { host: desktop.host ?? '127.0.0.1', port: desktop.port ?? 0 };
    params = {};
  } else {
    const xrdp = await startTestXrdp();
    if ('skip' in xrdp) return skipOrFail('xrdp', xrdp.skip);
    cleanups.push(() => xrdp.stop());
    server = { host: xrdp.host, port: xrdp.port };
    params = { ...RDP_DEFAULTS, username: xrdp.username, password: xrdp.password };
  }
  const proxy = await StallProxy.start({ host: '127.0.0.1', port: 0 }, server);
  cleanups.push(() => proxy.close());
  const end = proxy.listening as { host: string; port: number };
  const connection: ConnectionConfig = {
    protocol: kind,
    params: { ...params, hostname: end.host, port: String(end.port) },
  };
  const workDir = await mkdtemp(join(tmpdir(), 'oc-guacd-stall-'));
  cleanups.push(() => rm(workDir, { recursive: true, force: true }));
  const fixture = await startTestAccess();
  cleanups.push(() => fixture.close());
  const bridge = await startBridge(
    { port: 0, webRoot: workDir, guacd: { host: guacd.host, port: guacd.port }, connection },
    { access: fixture.access, logger: fixture.logger },
  );
  cleanups.push(() => bridge.close());
  return { bridge, fixture, proxy };
}

/** The bridge's /readyz: its status and the reasons it gives. */
export async function readyz(bridge: RunningBridge): Promise<{ status: number; body: string }> {
  const response = await fetch(new URL('readyz', bridge.url));
  return { status: response.status, body: await response.text() };
}
