// A desktop link that stalls, with real parts: Xvnc, the embedded gateway and the bridge, and a
// proxy the test controls between the gateway and Xvnc (testing/stallProxy.ts). With the proxy
// paused the gateway must notice the silence (its probe goes unanswered) and close the tunnel
// with 514 UPSTREAM_TIMEOUT within its stated deadline, /readyz must say so, and once the proxy
// forwards again a tunnel opened as the browser would reopen it must show the desktop.
import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { startGateway, startLocalDesktop } from '@overlay-companion/gateway';
import { GuacStatus } from '@overlay-companion/guac';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { silentLogger } from '../logger.js';
import { startBridge, type RunningBridge } from '../bridge.js';
import { StallProxy } from '../testing/stallProxy.js';
import { startTestAccess, type TestAccess } from '../testing/testAccess.js';
import { TunnelClient } from '../testing/tunnelClient.js';
import { eventually } from '@overlay-companion/gateway/testing';
import { statusFromClose } from './closeStatus.js';

/** The gateway's defaults: a probe after 2 s of silence, 4 s for the answer (silenceWatch.ts). */
const NOTICE_DEADLINE_MS = 2000 + 4000 + 1500;

let workDir: string;
let fixture: TestAccess;
let bridge: RunningBridge;
let proxy: StallProxy;
let desktopEnv: NodeJS.ProcessEnv;
const cleanups: Array<() => Promise<unknown>> = [];

async function openTunnel(): Promise<TunnelClient> {
  const client = await TunnelClient.open(bridge.url, await fixture.ticket('tunnel'));
  cleanups.push(() => client.close());
  return client;
}

async function readyz(): Promise<{ status: number; body: string }> {
  const response = await fetch(new URL('readyz', bridge.url));
  return { status: response.status, body: await response.text() };
}

beforeAll(async () => {
  workDir = await mkdtemp(join(tmpdir(), 'oc-stall-'));
  fixture = await startTestAccess();
  const desktop = await startLocalDesktop({ windowManager: false });
  cleanups.push(() => desktop.stop());
  desktopEnv = desktop.env;
  proxy = await StallProxy.start({ path: join(workDir, 'proxy.sock') }, { path: desktop.rfbPath });
  cleanups.push(() => proxy.close());
  const proxyPath = join(workDir, 'proxy.sock');
  const gateway = await startGateway({
    path: join(workDir, 'gateway.sock'),
    vncUnixSockets: [proxyPath],
    logger: silentLogger(),
  });
  cleanups.push(() => gateway.close());
  bridge = await startBridge(
    {
      port: 0,
      webRoot: workDir,
      guacd: { path: gateway.path },
      connection: { protocol: 'vnc', params: { hostname: proxyPath } },
    },
    { access: fixture.access },
  );
  cleanups.push(() => bridge.close());
}, 60_000);

afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
  await fixture?.close();
  await rm(workDir, { recursive: true, force: true });
});

describe('a stalled desktop link', () => {
  it('is closed with 514 within the deadline, makes /readyz 503, and works again once it resumes', async () => {
    const client = await openTunnel();
    await client.waitForOpcode('img');
    expect((await readyz()).status).toBe(200);

    // A still desktop is not a silent one: the gateway's probes are answered, and each answer
    // reaches the browser as a frame (what the viewer's frame age and wait_for_screen rely on).
    // Input confirmed all along (its fence answers are bytes from the server, but not frames)
    // must not stop those keep-alive frames: the viewer counts frames, not bytes.
    const syncsBefore = client.instructions.filter((i) => i.opcode === 'sync').length;
    const moving = setInterval(() => {
      const x = 300 + Math.floor(Math.random() * 100);
      client.sendRaw(`5.mouse,3.${x},3.300,1.0;10.oc-receipt,2.99;`);
    }, 200);
    await new Promise((resolve) => setTimeout(resolve, 7000));
    clearInterval(moving);
    expect(client.instructions.some((i) => i.opcode === 'error')).toBe(false);
    const stillSyncs = client.instructions.filter((i) => i.opcode === 'sync').length - syncsBefore;
    console.log(`frames in 7 s of a still desktop: ${stillSyncs}`);
    expect(stillSyncs).toBeGreaterThanOrEqual(2);

    // Input is confirmed once Xvnc has it (an RFB fence through the gateway): at that moment X
    // already shows it.
    client.sendRaw('5.mouse,3.321,3.234,1.0;10.oc-receipt,1.1;');
    const receipt = await client.waitFor((i) => i.opcode === 'oc-receipt' && i.args[0] === '1', {
      what: 'the receipt',
    });
    expect(receipt.args[1]).toBe('desktop');
    const { stdout } = await promisify(execFile)('xdotool', ['getmouselocation'], {
      env: desktopEnv,
    });
    expect(stdout).toMatch(/^x:321 y:234 /);

    const stalledAt = Date.now();
    proxy.pause();
    // Input into the stalled link is never confirmed: its receipt says `lost` as the tunnel ends.
    client.sendRaw('5.mouse,2.10,2.20,1.0;10.oc-receipt,1.2;');
    const closed = await Promise.race([
      client.closed,
      new Promise<never>((_resolve, reject) =>
        setTimeout(
          () => reject(new Error('the tunnel stayed open on a stalled link')),
          NOTICE_DEADLINE_MS + 3000,
        ),
      ),
    ]);
    const noticedMs = Date.now() - stalledAt;
    console.log(`stall noticed after ${noticedMs} ms`);
    expect(noticedMs).toBeLessThan(NOTICE_DEADLINE_MS);
    expect(statusFromClose(closed.code, closed.reason)).toBe(GuacStatus.UPSTREAM_TIMEOUT);
    const error = client.instructions.find((i) => i.opcode === 'error');
    expect(error?.args[1]).toBe(String(GuacStatus.UPSTREAM_TIMEOUT));
    expect(error?.args[0]).toMatch(/stopped answering/);
    const lost = client.instructions.filter((i) => i.opcode === 'oc-receipt' && i.args[0] === '2');
    expect(lost.map((i) => i.args[1])).toEqual(['lost']);

    // /readyz caches for 1 s.
    await eventually('/readyz to turn 503', async () => (await readyz()).status === 503, 3000);
    expect((await readyz()).body).toMatch(/desktop stopped answering/);

    // Resume, and reconnect as guacamole-common-js's page does after an error.
    proxy.resume();
    const resumedAt = Date.now();
    const again = await openTunnel();
    await again.waitForOpcode('img');
    const usableMs = Date.now() - resumedAt;
    console.log(`usable again ${usableMs} ms after the link resumed`);
    expect(usableMs).toBeLessThan(3000);
    await eventually('/readyz to be 200', async () => (await readyz()).status === 200, 3000);
  }, 60_000);
});
