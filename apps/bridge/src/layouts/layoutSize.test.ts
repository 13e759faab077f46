// A saved layout sizes its desktop, and clearing it gives the desktop back the size it had
// before: on a real Xvnc desktop behind our gateway and behind Apache guacd (skipped with the
// reason where guacd is missing), through the signed-in layout API as the layout page uses it,
// the size read from the X side. Both with a window open on the desktop (the resize rides its
// connection) and with none (the bridge resizes through a connection of its own).
import { API, type MonitorLayout } from '@overlay-companion/protocol';
import { eventually } from '@overlay-companion/gateway/testing';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startTestBridge, type TestBridge } from '../mcp/testing/fixtures.js';
import { startDesktopPath, type DesktopPath } from '../testing/desktopPaths.js';
import { skipOrFail } from '../testing/guacd.js';
import { TunnelClient } from '../testing/tunnelClient.js';
import { screenSize, screenSizeBecomes, sizeText } from '../testing/xside.js';

/** One monitor of a size no test desktop starts at. */
const ONE_SCREEN: MonitorLayout = {
  monitors: [{ x: 0, y: 0, width: 1024, height: 640, label: 'laptop' }],
  masks: [],
};

describe.each(['gateway-xvnc', 'guacd-xvnc'] as const)('a layout on %s', (name) => {
  let skipped: string | undefined;
  let path: DesktopPath;
  let bridge: TestBridge;
  let xEnv: NodeJS.ProcessEnv;
  let own: string;
  const windows: TunnelClient[] = [];

  beforeAll(async () => {
    const started = await startDesktopPath(name);
    if ('skip' in started) return void (skipped = skipOrFail(`The ${name} path`, started.skip));
    path = started;
    xEnv = await path.startSession();
    own = sizeText(await screenSize(xEnv));
    bridge = await startTestBridge({ desktop: { guacd: path.guacd, connection: path.connection } });
  }, 120_000);

  afterEach(async () => {
    await Promise.all(windows.splice(0).map((w) => w.close()));
    if (bridge !== undefined)
      await eventually('every window to leave', () => bridge.tunnels.size === 0, 10_000);
  });

  afterAll(async () => {
    await bridge?.close();
    await path?.stop();
  }, 60_000);

  const xSizeBecomes = (text: string) => screenSizeBecomes(xEnv, text);

  async function save(layout: MonitorLayout | null): Promise<void> {
    const res =
      layout === null
        ? await bridge.session.request(API.layout, { method: 'DELETE' })
        : await bridge.session.request(API.layout, { method: 'PUT', body: { layout } });
    expect(res.ok, `${layout === null ? 'DELETE' : 'PUT'} ${API.layout}: ${res.status}`).toBe(true);
  }

  it('sizes the desktop to a saved layout and back when it is cleared, a window open', async (ctx) => {
    if (skipped !== undefined) ctx.skip(skipped);
    const window = await TunnelClient.open(bridge.url, await bridge.session.ticket('tunnel'));
    windows.push(window);
    await window.waitFor((i) => i.opcode === 'size' && i.args[0] === '0', {
      timeoutMs: 30_000,
      what: "the desktop's size",
    });
    expect(own).not.toBe('1024x640');

    await save(ONE_SCREEN);
    await xSizeBecomes('1024x640');
    const cleared = window.instructions.length;
    await save(null);
    await xSizeBecomes(own);
    // The window is told too (it draws the desktop at the size it has).
    await eventually(
      'the window to hear the size it had',
      () =>
        window.instructions
          .slice(cleared)
          .some(
            (i) => i.opcode === 'size' && i.args[0] === '0' && `${i.args[1]}x${i.args[2]}` === own,
          ),
      5_000,
    );
  }, 90_000);

  it('sizes the desktop and back with no window open', async (ctx) => {
    if (skipped !== undefined) ctx.skip(skipped);
    expect(bridge.tunnels.size).toBe(0);
    await save(ONE_SCREEN);
    await xSizeBecomes('1024x640');
    await save(null);
    await xSizeBecomes(own);
  }, 90_000);
});
