// Attention through the bridge, with real parts: Xvnc with an xterm printing every 30 ms, the
// embedded gateway and the bridge. A window that glances (a fleet tile) gets about one frame a
// second while a full window on the same desktop gets every change; the bridge passes the
// browser's `oc-attention` on only as its own `x-oc-attention`, never lets the gateway's words
// (its announcements, delivery answers) through to a browser, and ends a tunnel that sends a
// malformed level — that one only.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startGateway, startLocalDesktop } from '@overlay-companion/gateway';
import { GLANCE_FRAME_INTERVAL_MS, GuacStatus } from '@overlay-companion/guac';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { silentLogger } from '../logger.js';
import { startBridge, type RunningBridge } from '../bridge.js';
import { startTestAccess, type TestAccess } from '../testing/testAccess.js';
import { TunnelClient } from '../testing/tunnelClient.js';
import { statusFromClose } from './closeStatus.js';

let workDir: string;
let fixture: TestAccess;
let bridge: RunningBridge;
const cleanups: Array<() => Promise<unknown>> = [];

async function openTunnel(): Promise<TunnelClient> {
  const client = await TunnelClient.open(bridge.url, await fixture.ticket('tunnel'));
  cleanups.push(() => client.close());
  await client.waitForOpcode('img');
  return client;
}

const frames = (client: TunnelClient) =>
  client.instructions.filter((i) => i.opcode === 'sync').length;

beforeAll(async () => {
  workDir = await mkdtemp(join(tmpdir(), 'oc-attention-'));
  fixture = await startTestAccess();
  const desktop = await startLocalDesktop({
    windowManager: false,
    xterm: {
      command: ['sh', '-c', 'while :; do date +%s%N; sleep 0.03; done'],
      geometry: '40x10+10+10',
    },
  });
  cleanups.push(() => desktop.stop());
  const gateway = await startGateway({
    path: join(workDir, 'gateway.sock'),
    vncUnixSockets: [desktop.rfbPath],
    logger: silentLogger(),
  });
  cleanups.push(() => gateway.close());
  bridge = await startBridge(
    {
      port: 0,
      webRoot: workDir,
      guacd: { path: gateway.path },
      connection: { protocol: 'vnc', params: { hostname: desktop.rfbPath } },
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

describe('attention through the bridge', () => {
  it('gives a glancing window one frame a second and a full one every change', async () => {
    const full = await openTunnel();
    const tile = await openTunnel();
    tile.send('oc-attention', 'glance');
    await new Promise((resolve) => setTimeout(resolve, 300));
    const [fullBefore, tileBefore] = [frames(full), frames(tile)];
    const watchMs = 3 * GLANCE_FRAME_INTERVAL_MS + 200;
    await new Promise((resolve) => setTimeout(resolve, watchMs));
    const fullFrames = frames(full) - fullBefore;
    const tileFrames = frames(tile) - tileBefore;
    console.log(`in ${watchMs} ms: full window ${fullFrames} frames, glancing tile ${tileFrames}`);
    expect(fullFrames).toBeGreaterThan(10);
    expect(tileFrames).toBeGreaterThanOrEqual(2);
    expect(tileFrames).toBeLessThanOrEqual(4);

    tile.send('oc-attention', 'full');
    const back = frames(tile);
    await tile.waitFor(() => frames(tile) > back + 10, { what: 'frames at full attention' });

    // The gateway's own words never reach a browser.
    for (const client of [full, tile]) {
      expect(client.instructions.some((i) => i.opcode.startsWith('x-oc-'))).toBe(false);
    }
  });

  it('ends a tunnel that sends a malformed level with 768, and only that one', async () => {
    const other = await openTunnel();
    const bad = await openTunnel();
    bad.send('oc-attention', 'squint');
    const closed = await bad.closed;
    expect(statusFromClose(closed.code, closed.reason)).toBe(GuacStatus.CLIENT_BAD_REQUEST);
    const before = frames(other);
    await other.waitFor(() => frames(other) > before + 3, { what: 'the other window to go on' });
    expect(other.isOpen).toBe(true);
  });
});
