// The framebuffer against the real X screen of a real Xvnc: full update, incremental updates
// (ZRLE by default, Raw when forced) and CopyRect from a moved window, each compared pixel for
// pixel with `xwd -root`.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { startLocalDesktop, type LocalDesktop } from '../desktop/localDesktop.js';
import { eventually, nextEvent, waitForScreenMatch } from '../testing/index.js';
import { RfbClient } from './client.js';
import { Encoding } from './encodings.js';

const run = promisify(execFile);

/** Keeps updates flowing the way the gateway session does: one request per frameEnd. */
function pump(client: RfbClient): void {
  // Xvnc paints the pointer into a client's pixels while the pointer sits somewhere that client
  // did not put it (xwd never shows it); owning the pointer position makes it send the shape only.
  client.pointer(client.width - 1, client.height - 1, 0);
  client.on('frameEnd', () => client.requestUpdate(true));
  client.requestUpdate(false);
}

const view = (client: RfbClient) => ({
  width: client.width,
  height: client.height,
  rgba: client.framebuffer,
});

describe('RfbClient display against a real Xvnc', () => {
  let desktop: LocalDesktop;
  beforeAll(async () => {
    desktop = await startLocalDesktop({
      xterm: {
        command: ['sh', '-c', 'ls -l /usr/bin | head -40; exec cat'],
        geometry: '90x30+30+30',
      },
    });
  });
  afterAll(() => desktop.stop());

  test('full update equals xwd, then incremental ZRLE updates follow X drawing', async () => {
    const client = await RfbClient.connect({ path: desktop.rfbPath });
    try {
      expect(client.width).toBe(1280);
      expect(client.height).toBe(800);
      pump(client);
      expect(await waitForScreenMatch(desktop.env, () => view(client))).toEqual({
        mismatches: 0,
      });
      expect(client.stats.zrle).toBeGreaterThan(0);

      await run('xsetroot', ['-solid', '#3a7f2c'], { env: desktop.env });
      expect(await waitForScreenMatch(desktop.env, () => view(client))).toEqual({
        mismatches: 0,
      });
      await run('xsetroot', ['-mod', '6', '6', '-fg', '#ff00aa', '-bg', '#102030'], {
        env: desktop.env,
      });
      expect(await waitForScreenMatch(desktop.env, () => view(client))).toEqual({
        mismatches: 0,
      });
      expect(client.stats.raw).toBe(0);
    } finally {
      client.close();
    }
  });

  test('Raw-only client (test option) matches xwd through full and incremental updates', async () => {
    const client = await RfbClient.connect({
      path: desktop.rfbPath,
      // Cursor stays on so the server does not paint the pointer into our pixels.
      encodings: [
        Encoding.Raw,
        Encoding.Cursor,
        Encoding.ExtendedDesktopSize,
        Encoding.DesktopSize,
        Encoding.LastRect,
      ],
    });
    try {
      pump(client);
      expect(await waitForScreenMatch(desktop.env, () => view(client))).toEqual({
        mismatches: 0,
      });
      await run('xsetroot', ['-solid', '#c0ffee'], { env: desktop.env });
      expect(await waitForScreenMatch(desktop.env, () => view(client))).toEqual({
        mismatches: 0,
      });
      expect(client.stats.raw).toBeGreaterThan(0);
      expect(client.stats.zrle).toBe(0);
    } finally {
      client.close();
    }
  });

  test('moving a window arrives as CopyRect and the framebuffer still matches', async () => {
    const client = await RfbClient.connect({ path: desktop.rfbPath });
    try {
      pump(client);
      expect(await waitForScreenMatch(desktop.env, () => view(client))).toEqual({
        mismatches: 0,
      });
      const window = await eventually('xterm window', async () => {
        const { stdout } = await run('xdotool', ['search', '--onlyvisible', '--class', 'xterm'], {
          env: desktop.env,
        });
        return stdout.trim().split('\n')[0] || undefined;
      });
      const copies: unknown[] = [];
      client.on('copy', (c) => copies.push(c));
      for (const [x, y] of [
        [200, 150],
        [420, 260],
      ] as const) {
        await run('xdotool', ['windowmove', window, String(x), String(y)], { env: desktop.env });
        await nextEvent(client, 'frameEnd');
        expect(await waitForScreenMatch(desktop.env, () => view(client))).toEqual({
          mismatches: 0,
        });
      }
      expect(copies.length).toBeGreaterThan(0);
    } finally {
      client.close();
    }
  });
});
