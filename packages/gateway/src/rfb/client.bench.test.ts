// Measures full-frame decode time on a busy 1280x800 desktop served by a real Xvnc: xterms
// covering the screen with random characters on random 256-colour backgrounds (many colours
// per tile, so ZRLE falls back to palette-RLE and raw tiles) over a patterned root window.
// Prints the numbers for the report and fails if decoding becomes the gateway's bottleneck.
import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { startLocalDesktop, type LocalDesktop } from '../desktop/localDesktop.js';
import { eventually, waitForScreenMatch } from '../testing/index.js';
import { RfbClient } from './client.js';

const run = promisify(execFile);

/** Requests a full update and resolves once rectangles covering the whole screen arrived. */
async function timeFullFrame(
  client: RfbClient,
): Promise<{ decodeMs: number; wallMs: number; bytes: number }> {
  const before = client.stats.decodeMs;
  const start = performance.now();
  let area = 0;
  await new Promise<void>((resolve) => {
    const onRect = (r: { width: number; height: number }) => {
      area += r.width * r.height;
    };
    const onEnd = () => {
      // The first reply to a full request may carry only the ExtendedDesktopSize rectangle.
      if (area < client.width * client.height) return client.requestUpdate(true);
      client.off('rect', onRect);
      client.off('frameEnd', onEnd);
      resolve();
    };
    client.on('rect', onRect);
    client.on('frameEnd', onEnd);
    client.requestUpdate(false);
  });
  return {
    decodeMs: client.stats.decodeMs - before,
    wallMs: performance.now() - start,
    bytes: area * 4,
  };
}

const median = (values: number[]) =>
  [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

describe('full-frame decode time (busy 1280x800 desktop, real Xvnc)', () => {
  let desktop: LocalDesktop;
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'rfb-bench-'));
    const noise =
      'awk \'BEGIN{srand(7); for(i=0;i<12000;i++) printf "\\033[48;5;%dm\\033[38;5;%dm%c", int(rand()*256), int(rand()*256), 33+int(rand()*90)}\'; exec cat';
    desktop = await startLocalDesktop({
      xterm: { command: ['sh', '-c', noise], geometry: '183x50+0+0' },
    });
    await run('xsetroot', ['-mod', '3', '5', '-fg', '#e08020', '-bg', '#203040'], {
      env: desktop.env,
    });
    desktop.spawnClient('xterm', [
      '-geometry',
      '80x20+700+500',
      '-e',
      'sh',
      '-c',
      'ls -l /usr/bin | head -60; exec cat',
    ]);
  });
  afterAll(async () => {
    await desktop.stop();
    await rm(dir, { recursive: true, force: true });
  });

  for (const mode of ['ZRLE', 'Raw'] as const) {
    test(`${mode}`, { timeout: 60_000 }, async () => {
      const client = await RfbClient.connect({
        host: desktop.host,
        port: desktop.port,
        ...(mode === 'Raw' ? { encodings: [0, -239, -308, -223, -224] } : {}),
      });
      try {
        client.pointer(1279, 799, 0);
        const settle = () => client.requestUpdate(true);
        client.on('frameEnd', settle);
        client.requestUpdate(false);
        expect(
          await waitForScreenMatch(desktop.display, () => ({
            width: client.width,
            height: client.height,
            rgba: client.framebuffer,
          })),
        ).toEqual({
          mismatches: 0,
        });
        await eventually('xterms drawn', () =>
          Promise.resolve(client.stats.rects > 0 || undefined),
        );
        client.off('frameEnd', settle);
        await new Promise((resolve) => setTimeout(resolve, 300));
        const runs = [];
        for (let i = 0; i < 7; i++) runs.push(await timeFullFrame(client));
        const decode = median(runs.map((r) => r.decodeMs));
        const wall = median(runs.map((r) => r.wallMs));
        console.log(
          `[bench] ${mode} full 1280x800 frame: decode median ${decode.toFixed(1)} ms (runs: ${runs.map((r) => r.decodeMs.toFixed(1)).join(', ')}), request-to-last-rect median ${wall.toFixed(1)} ms`,
        );
        // Generous bound for a shared 2-core machine; the numbers above are what matters.
        expect(decode).toBeLessThan(60);
      } finally {
        client.close();
      }
    });
  }
});
