// Lossy images never stay on a still screen. With the lossy path forced on (every image that is
// not a settling refresh goes as JPEG), an xterm scrolls text on a real Xvnc; once it stops, the
// browser's picture must equal `xwd -root` pixel for pixel — which only the lossless redraw of
// settled lossy regions can achieve, since JPEG never reproduces antialiased text exactly. The
// control case proves that: with the redraw pushed out of reach, the same picture stays wrong.
import { writeFile, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLocalDesktop, type LocalDesktop } from '../desktop/localDesktop.js';
import { captureRoot, compareRgba, waitForScreenMatch } from '../testing/desktopCapture.js';
import { GuacTestClient } from '../testing/guacTestClient.js';
import { waitForVisibleWindow } from '../testing/xWindows.js';
import { startGateway, type Gateway } from './gateway.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('gateway with the lossy path forced on', () => {
  let desktop: LocalDesktop;
  let dir: string;
  let runFile: string;
  const gateways: Gateway[] = [];
  const clients: GuacTestClient[] = [];

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'oc-gw-lossy-'));
    runFile = join(dir, 'run');
    desktop = await startLocalDesktop({
      width: 800,
      height: 500,
      xterm: {
        // Scrolls numbered lines while the run file exists.
        command: [
          'sh',
          '-c',
          `i=1; while :; do if [ -e ${runFile} ]; then seq $i $((i+5)); i=$((i+6)); fi; sleep 0.03; done`,
        ],
        geometry: '80x20+10+10',
      },
    });
    await waitForVisibleWindow(desktop.env, 'xterm');
  });

  afterAll(async () => {
    for (const client of clients) client.close();
    for (const gateway of gateways) await gateway.close();
    await desktop?.stop();
    await rm(dir, { recursive: true, force: true });
  });

  /** Connects a browser through a gateway with `lossySettleMs`, scrolls, then stops. */
  async function scrollThrough(lossySettleMs: number): Promise<GuacTestClient> {
    const gateway = await startGateway({
      port: 0,
      vncUnixSockets: [desktop.rfbPath],
      logger: pino({ level: 'silent' }),
      lossy: 'always',
      lossySettleMs,
    });
    gateways.push(gateway);
    const client = await GuacTestClient.connect(gateway, {
      select: 'vnc',
      params: { hostname: desktop.rfbPath },
      size: [800, 500],
    });
    clients.push(client);
    await client.waitForFrames(1);
    // TigerVNC draws the pointer into the pixels unless this client moved it (xwd never shows
    // it): move it, into a corner clear of the xterm.
    client.send('mouse', 798, 498, 0);
    client.send('mouse', 799, 499, 0);
    await writeFile(runFile, '');
    await sleep(1200);
    await rm(runFile, { force: true });
    return client;
  }

  it('redraws every lossy region exactly once the screen is still', async () => {
    const client = await scrollThrough(300);
    const settled = await waitForScreenMatch(desktop.env, () => client.screen, 15_000);
    expect(settled).toEqual({ mismatches: 0 });
    // The lossy path really ran: JPEG images while scrolling (a frame's changes go as one or
    // two images, and a loaded machine sends few frames in 1.2 s), and exact ones after them.
    const jpegs = client.images.filter((i) => i.mimetype === 'image/jpeg');
    expect(jpegs.length).toBeGreaterThan(1);
    const lastJpeg = client.images.lastIndexOf(jpegs.at(-1)!);
    const after = client.images.slice(lastJpeg + 1);
    expect(after.some((i) => i.mimetype === 'image/png')).toBe(true);
  });

  it('(control) without the redraw, the same picture stays inexact', async () => {
    const client = await scrollThrough(600_000);
    // Give frames time to arrive, then compare: JPEG text is never pixel-exact.
    await sleep(1500);
    const diff = compareRgba(await captureRoot(desktop.env), client.screen);
    expect(diff.mismatches).toBeGreaterThan(100);
  });
});
