// A stalled desktop link behind Apache guacd, with real parts: guacd 1.6 and Xvnc, guacd and
// xrdp, with a proxy the test controls between guacd and the desktop (testing/stallProxy.ts).
// guacd itself never reports such a stall (linkProbe.ts); the bridge's link watch must notice
// it: the tunnel is closed with 514 UPSTREAM_TIMEOUT within the stated deadline, /readyz says so,
// and once the proxy forwards again a tunnel opened as the browser reopens one shows the desktop.
// Skipped with the reason where guacd or xrdp is missing; failed there under OC_REQUIRE_GUACD=1.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startLocalDesktop } from '@overlay-companion/gateway';
import { GuacStatus } from '@overlay-companion/guac';
import { afterAll, describe, expect, it } from 'vitest';
import type { ConnectionConfig } from '../config.js';
import { startBridge, type RunningBridge } from '../bridge.js';
import { skipOrFail, startTestGuacd } from '../testing/guacd.js';
import { StallProxy } from '../testing/stallProxy.js';
import { startTestAccess, type TestAccess } from '../testing/testAccess.js';
import { TunnelClient, eventually } from '../testing/tunnelClient.js';
import { startTestXrdp } from '../testing/xrdp.js';
import { statusFromClose } from './closeStatus.js';
import { LINK_STALL_DEADLINE_MS } from './linkWatch.js';
import { RDP_DEFAULTS } from './upstream.js';

const cleanups: Array<() => Promise<unknown>> = [];

afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
}, 60_000);

interface Stack {
  bridge: RunningBridge;
  fixture: TestAccess;
  proxy: StallProxy;
}

/** guacd → proxy → the desktop server; undefined (skipped) where a part is missing. */
async function startStack(kind: 'vnc' | 'rdp'): Promise<Stack | string> {
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

async function readyz(bridge: RunningBridge): Promise<{ status: number; body: string }> {
  const response = await fetch(new URL('readyz', bridge.url));
  return { status: response.status, body: await response.text() };
}

/** Opens a tunnel and waits for the desktop's first picture (RDP logs in first: seconds). */
async function showing(stack: Stack): Promise<TunnelClient> {
  const client = await TunnelClient.open(stack.bridge.url, await stack.fixture.ticket('tunnel'));
  cleanups.push(() => client.close());
  const shown = await client.waitFor((i) => i.opcode === 'img' || i.opcode === 'error', {
    timeoutMs: 60_000,
    what: "the desktop's first picture",
  });
  if (shown.opcode === 'error') throw new Error(`The tunnel failed: ${shown.args.join(' / ')}`);
  return client;
}

describe.each(['vnc', 'rdp'] as const)(
  'a stalled link between guacd and the %s desktop',
  (kind) => {
    it(
      'is closed with 514 within the deadline, makes /readyz 503, and works again once it resumes',
      { timeout: 150_000 },
      async (ctx) => {
        const stack = await startStack(kind);
        if (typeof stack === 'string') {
          ctx.skip(stack);
          return;
        }
        const client = await showing(stack);
        // A still desktop is not a stalled one: the probes are answered and the tunnel stays.
        await new Promise((resolve) => setTimeout(resolve, LINK_STALL_DEADLINE_MS));
        expect(client.isOpen).toBe(true);
        expect((await readyz(stack.bridge)).status).toBe(200);

        // guacd acknowledges no input: a receipt says `link` once the desktop showed life after
        // the input (a frame, or the bridge's probe of its server).
        client.sendRaw('5.mouse,2.40,2.30,1.0;10.oc-receipt,1.1;');
        const receipt = await client.waitFor(
          (i) => i.opcode === 'oc-receipt' && i.args[0] === '1',
          { what: 'the receipt' },
        );
        expect(receipt.args[1]).toBe('link');

        const stalledAt = Date.now();
        stack.proxy.pause();
        // Input into the stalled link is never confirmed: its receipt says `lost` as it ends.
        client.sendRaw('5.mouse,2.50,2.30,1.0;10.oc-receipt,1.2;');
        const closed = await Promise.race([
          client.closed,
          new Promise<never>((_resolve, reject) =>
            setTimeout(
              () => reject(new Error('the tunnel stayed open on a stalled link')),
              LINK_STALL_DEADLINE_MS + 5_000,
            ),
          ),
        ]);
        const noticedMs = Date.now() - stalledAt;
        console.log(`guacd ${kind}: stall noticed after ${noticedMs} ms`);
        expect(noticedMs).toBeLessThan(LINK_STALL_DEADLINE_MS + 1_000);
        expect(statusFromClose(closed.code, closed.reason)).toBe(GuacStatus.UPSTREAM_TIMEOUT);
        const error = client.instructions.find((i) => i.opcode === 'error');
        expect(error?.args[1]).toBe(String(GuacStatus.UPSTREAM_TIMEOUT));
        expect(error?.args[0]).toMatch(/stopped answering/);
        const lost = client.instructions.filter(
          (i) => i.opcode === 'oc-receipt' && i.args[0] === '2',
        );
        expect(lost.map((i) => i.args[1])).toEqual(['lost']);
        await eventually(
          async () => (await readyz(stack.bridge)).status === 503,
          3_000,
          '/readyz to turn 503',
        );
        expect((await readyz(stack.bridge)).body).toMatch(/desktop stopped answering/);

        // Reconnect as the viewer does after an error: again, a second later, until it shows
        // (guacd may first fail to reach a VNC server still busy with the stalled connection).
        stack.proxy.resume();
        const resumedAt = Date.now();
        const failures: string[] = [];
        await eventually(
          () =>
            showing(stack).then(
              () => true,
              async (err: unknown) => {
                failures.push(String(err));
                await new Promise((resolve) => setTimeout(resolve, 1_000));
                return false;
              },
            ),
          20_000,
          'a reopened tunnel to show the desktop',
        );
        if (failures.length > 0)
          console.log(`guacd ${kind}: reopening failed first: ${failures.join('; ')}`);
        console.log(
          `guacd ${kind}: usable again ${Date.now() - resumedAt} ms after the link resumed`,
        );
        await eventually(
          async () => (await readyz(stack.bridge)).status === 200,
          3_000,
          '/readyz to be 200',
        );
      },
    );
  },
);
