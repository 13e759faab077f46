// Flow control and CopyRect against a real Xvnc whose xterm prints constantly: a browser that
// holds its `sync` back gets no more than the window of unacknowledged frames (changes coalesce
// instead) while a second browser on the same connection keeps receiving frames; once it
// acknowledges, it is brought back to the exact X screen. Moving a window exercises `copy`, and
// the result is still pixel-exact.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LocalDesktop } from '../desktop/localDesktop.js';
import { waitForScreenMatch } from '../testing/desktopCapture.js';
import { GuacTestClient } from '../testing/guacTestClient.js';
import { GLANCE_FRAME_INTERVAL_MS } from '@overlay-companion/guac';
import { MAX_FRAMES_IN_FLIGHT } from '../session/guacUser.js';
import {
  claimPointer,
  startPrintingDesktop,
  type PrintingDesktop,
} from '../testing/printingDesktop.js';
import type { Gateway } from './gateway.js';

const run = promisify(execFile);

describe('gateway flow control', () => {
  let printing: PrintingDesktop;
  let desktop: LocalDesktop;
  let gateway: Gateway;
  const clients: GuacTestClient[] = [];
  const params = (): Record<string, string> => printing.params();

  beforeAll(async () => {
    printing = await startPrintingDesktop();
    ({ desktop, gateway } = printing);
  });

  afterAll(async () => {
    for (const client of clients) client.close();
    await printing?.close();
  });

  it('sends no frame beyond the unacknowledged window, coalesces, and catches up on ack', async () => {
    const lagging = await GuacTestClient.connect(gateway, {
      select: 'vnc',
      params: params(),
      autoSync: false,
    });
    clients.push(lagging);
    await lagging.waitForFrames(MAX_FRAMES_IN_FLIGHT);
    const peer = await GuacTestClient.connect(gateway, { select: lagging.connectionId });
    clients.push(peer);
    await peer.waitForFrames(1);
    const peerFrames = peer.frames;

    // The xterm changes every 30 ms: the peer keeps receiving frames, the laggard no more.
    await peer.waitFor(() => peer.frames > peerFrames + 5, 'the peer to receive frames');
    expect(lagging.frames).toBe(MAX_FRAMES_IN_FLIGHT);

    // Acknowledging all frames reopens the window once: again at most its size, then nothing.
    lagging.acknowledge();
    await lagging.waitForFrames(MAX_FRAMES_IN_FLIGHT + 1);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(lagging.frames).toBe(2 * MAX_FRAMES_IN_FLIGHT);
    // The one catch-up frame carried small images, not the whole screen again.
    const images = lagging.received.filter((i) => i.opcode === 'img');
    expect(images.length).toBeGreaterThan(1);

    // Keep-alives flow regardless of frames.
    expect(lagging.received.some((i) => i.opcode === 'nop')).toBe(true);

    // With sync answered again, the laggard converges on the X screen exactly.
    lagging.autoSync = true;
    lagging.acknowledge();
    claimPointer(lagging, 790, 490);
    expect(await waitForScreenMatch(desktop.env, () => lagging.screen)).toEqual({
      mismatches: 0,
    });
    lagging.close();
    peer.close();
  });

  it('sends a browser that only glances one frame a second, and all of them again at full attention', async () => {
    const full = await GuacTestClient.connect(gateway, { select: 'vnc', params: params() });
    clients.push(full);
    const glance = await GuacTestClient.connect(gateway, { select: full.connectionId });
    clients.push(glance);
    // The gateway says it honours attention, right after `ready`.
    await glance.waitFor(
      () => glance.received.some((i) => i.opcode === 'x-oc-attention' && i.args.length === 0),
      'the attention announcement',
    );
    await glance.waitForFrames(1);
    glance.send('x-oc-attention', 'glance');
    await new Promise((resolve) => setTimeout(resolve, 200));
    const [fullBefore, glanceBefore] = [full.frames, glance.frames];
    const watchMs = 3 * GLANCE_FRAME_INTERVAL_MS + 200;
    await new Promise((resolve) => setTimeout(resolve, watchMs));
    const fullFrames = full.frames - fullBefore;
    const glanceFrames = glance.frames - glanceBefore;
    console.log(
      `in ${watchMs} ms of an xterm printing: full ${fullFrames} frames, glance ${glanceFrames}`,
    );
    // The xterm changes every 30 ms: the full viewer gets many frames, the glance at most one a second.
    expect(fullFrames).toBeGreaterThan(10);
    expect(glanceFrames).toBeGreaterThanOrEqual(2);
    expect(glanceFrames).toBeLessThanOrEqual(4);

    glance.send('x-oc-attention', 'full');
    const back = glance.frames;
    await glance.waitFor(() => glance.frames > back + 10, 'frames at full attention');
    // A malformed level is a protocol error for that browser only.
    glance.send('x-oc-attention', 'sometimes');
    await glance.waitFor(
      () => glance.received.some((i) => i.opcode === 'error'),
      'an error for a malformed level',
    );
    await full.waitFor(() => full.frames > fullBefore + fullFrames + 5, 'the full viewer to go on');
    full.close();
    glance.close();
  });

  it('replays window moves as copy and stays pixel-exact', async () => {
    const client = await GuacTestClient.connect(gateway, { select: 'vnc', params: params() });
    clients.push(client);
    await client.waitForFrames(1);
    claimPointer(client, 780, 480);
    const { stdout } = await run('xdotool', ['search', '--class', 'xterm'], { env: desktop.env });
    const window = stdout.trim().split('\n')[0] ?? '';
    for (const [wx, wy] of [
      [200, 150],
      [260, 190],
      [100, 300],
    ] as const) {
      await run('xdotool', ['windowmove', window, String(wx), String(wy)], { env: desktop.env });
      await new Promise((resolve) => setTimeout(resolve, 150));
    }
    const diff = await waitForScreenMatch(desktop.env, () => client.screen);
    expect(diff).toEqual({ mismatches: 0 });
    expect(client.received.some((i) => i.opcode === 'copy')).toBe(true);
    client.close();
  });
});
