// screen_change end to end: an MCP client (the SDK's) subscribes to screen_change, a real X
// client (xlogo) maps a window on the real Xvnc desktop, and the change reaches the AI through
// the real viewer in Chromium (the bridge's event_interest turned its frame following on), with
// a region that covers the new window. And the privacy side: while no subscription asks for
// screen_change, the viewer sends none at all — read from the frames the page itself sends on
// its sockets (Playwright's websocket events), behind a click event the same socket carries later.
import { spawn, type ChildProcess } from 'node:child_process';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { expect, test } from './fixtures.js';
import { callTool, connectMcp, openControlViewer, pageOf } from './support/controlPlane.js';
import { screenSize, windowRect, type Rect } from './support/xdesktop.js';

interface Received {
  type: string;
  data: { region?: Rect };
}

let mcp: Client;
let logo: ChildProcess | undefined;
/** Every text frame the viewer page sent on any of its WebSockets. */
let sent: string[] = [];

test.beforeEach(async ({ page, stack }) => {
  sent = [];
  page.on('websocket', (socket) =>
    socket.on('framesent', ({ payload }) => {
      if (typeof payload === 'string') sent.push(payload);
    }),
  );
  await openControlViewer(page, stack, 'assist');
  mcp = await connectMcp(stack);
});

test.afterEach(async () => {
  logo?.kill('SIGTERM');
  logo = undefined;
  await mcp.close();
});

/** Maps an xlogo window at `at` on the desktop and waits until X shows it. */
async function showLogo(env: NodeJS.ProcessEnv, at: Rect): Promise<Rect> {
  logo = spawn('xlogo', ['-geometry', `${at.width}x${at.height}+${at.x}+${at.y}`], { env });
  return windowRect(env, 'XLogo');
}

function overlaps(a: Rect, b: Rect): boolean {
  return a.x < b.x + b.width && b.x < a.x + a.width && a.y < b.y + b.height && b.y < a.y + a.height;
}

async function subscribe(events: string[]): Promise<string> {
  const sub = await callTool(mcp, 'subscribe_events', { events, debounce_ms: 0 });
  expect(sub.isError, sub.text).toBeFalsy();
  return String(sub.structured?.subscription_id);
}

async function drain(id: string): Promise<Received[]> {
  const got = await callTool(mcp, 'get_events', { subscription_id: id });
  expect(got.isError, got.text).toBeFalsy();
  return (got.structured?.events as Received[] | undefined) ?? [];
}

test('a window mapped on the desktop reaches a screen_change subscriber with its region', async ({
  stack,
}) => {
  const id = await subscribe(['screen_change']);
  const shown = await showLogo(stack.xEnv, { x: 300, y: 220, width: 160, height: 120 });
  const changes: Rect[] = [];
  await expect
    .poll(
      async () => {
        for (const event of await drain(id)) {
          expect(event.type).toBe('screen_change');
          if (event.data.region) changes.push(event.data.region);
        }
        return changes.some((region) => overlaps(region, shown));
      },
      { timeout: 15_000 },
    )
    .toBe(true);
  // The control case for the privacy test below: here the viewer did send them.
  await expect.poll(() => sent.some((frame) => frame.includes('"screen_change"'))).toBe(true);
  const desktop = await screenSize(stack.xEnv);
  for (const region of changes) {
    expect(region.x).toBeGreaterThanOrEqual(0);
    expect(region.y).toBeGreaterThanOrEqual(0);
    expect(region.x + region.width).toBeLessThanOrEqual(desktop.width);
    expect(region.y + region.height).toBeLessThanOrEqual(desktop.height);
  }
  await callTool(mcp, 'unsubscribe_events', { subscription_id: id });
});

test('no screen_change is collected while no subscription asks for it', async ({ page, stack }) => {
  const id = await subscribe(['mouse_click']);
  await showLogo(stack.xEnv, { x: 520, y: 260, width: 160, height: 120 });
  // The viewer draws the window, then the person clicks: the click's event travels the same
  // ordered socket after any screen_change the window's frames would have made.
  const desktop = await screenSize(stack.xEnv);
  const at = await pageOf(page, desktop.width, 100, desktop.height - 40);
  await page.mouse.click(at.x, at.y);
  const seen: Received[] = [];
  await expect
    .poll(
      async () => {
        seen.push(...(await drain(id)));
        return seen.some((event) => event.type === 'mouse_click');
      },
      { timeout: 15_000 },
    )
    .toBe(true);
  expect(seen.filter((event) => event.type === 'screen_change')).toEqual([]);
  // Playwright hears of sent frames through the browser's own events, which may come after the
  // bridge answered: wait for the click's frame — every frame sent before it is heard by then.
  await expect.poll(() => sent.some((frame) => frame.includes('"mouse_click"'))).toBe(true);
  expect(sent.filter((frame) => frame.includes('"screen_change"'))).toEqual([]);
  await callTool(mcp, 'unsubscribe_events', { subscription_id: id });
});
