// A stalled desktop link, seen from the person's page and from an MCP client (issue 19, P11
// items 4 and 5): `serve --vnc` reaches a real Xvnc through a proxy this test pauses (it stops
// forwarding and closes nothing, as a stuck network does). Behind the embedded gateway a still
// desktop keeps sending a small frame every ~2 s, so screenshots carry a small frame_age_ms;
// with the link paused the gateway closes it with 514 within its deadline, the page says the
// desktop stopped answering, an in-flight wait_for_screen until=stable fails instead of calling
// the silence stable, no screenshot older than the deadline is returned as ok, /readyz is 503,
// and after the proxy resumes the viewer reconnects by itself and everything works again.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { startLocalDesktop, type TcpLocalDesktop } from '@overlay-companion/gateway';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { expect, test } from '@playwright/test';
import { StallProxy } from '../apps/bridge/src/testing/stallProxy.js';
import { ViewerPage } from './pages/ViewerPage.js';
import { startStack, type RemoteStack } from './support/bridgeProcess.js';
import { callTool, connectMcp } from './support/controlPlane.js';

/** The gateway's: a probe after 2 s of silence, 4 s for its answer, checked every 0.5 s. */
const GATEWAY_DEADLINE_MS = 6_500;

let desktop: TcpLocalDesktop;
let proxy: StallProxy;
let stack: RemoteStack;
let mcp: Client;

test.beforeAll(async () => {
  desktop = await startLocalDesktop({ windowManager: false, rfbTcp: true });
  proxy = await StallProxy.start(
    { host: '127.0.0.1', port: 0 },
    { host: desktop.host, port: desktop.port },
  );
  const end = proxy.listening as { host: string; port: number };
  stack = await startStack({
    source: ['--vnc', `${end.host}:${end.port}`],
    flags: ['--mode', 'autopilot'],
  });
  mcp = await connectMcp(stack);
});

test.afterAll(async () => {
  await mcp?.close();
  await stack?.stop();
  await proxy?.close();
  await desktop?.stop();
});

test('a paused link: 514 on the page, tools fail instead of answering stale, /readyz 503, back after resuming', async ({
  page,
}) => {
  test.setTimeout(120_000);
  const viewer = new ViewerPage(page, stack);
  const readyz = async () => (await fetch(new URL('readyz', stack.url))).status;
  await viewer.open();
  await viewer.waitConnected();

  // A still desktop: frames keep arriving, so a screenshot's frame is young and stable is stable.
  await page.waitForTimeout(7_000);
  const fresh = await callTool(mcp, 'take_screenshot', {});
  expect(fresh.isError, fresh.text).toBe(false);
  const age = fresh.structured?.frame_age_ms;
  expect(typeof age).toBe('number');
  expect(age as number).toBeLessThan(3_000);
  const still = await callTool(mcp, 'wait_for_screen', { until: 'stable', stable_ms: 3000 });
  expect(still.structured?.satisfied, still.text).toBe(true);
  expect(await readyz()).toBe(200);
  // Input reports ok only once it reached the desktop: X has the pointer when the call returns.
  const moved = await callTool(mcp, 'mouse_move', { x: 321, y: 234 });
  expect(moved.isError, moved.text).toBe(false);
  const { stdout } = await promisify(execFile)('xdotool', ['getmouselocation'], {
    env: desktop.env,
  });
  expect(stdout).toMatch(/^x:321 y:234 /);

  const stalledAt = Date.now();
  proxy.pause();
  // Input into the stalled link is not reported ok (it would land whenever the link came back).
  const lostMove = callTool(mcp, 'mouse_move', { x: 10, y: 20 });
  let inFlightEndedMs = 0;
  const inFlight = callTool(mcp, 'wait_for_screen', {
    until: 'stable',
    stable_ms: 8000,
    timeout_ms: 20_000,
  }).finally(() => (inFlightEndedMs = Date.now() - stalledAt));
  // Screenshots meanwhile: each is either refused or has a frame younger than the deadline.
  const shots: Array<{ at: number; took: number; ok: boolean; age: unknown; text: string }> = [];
  while (Date.now() - stalledAt < GATEWAY_DEADLINE_MS + 2_000) {
    const callAt = Date.now();
    const shot = await callTool(mcp, 'take_screenshot', { scale: 0.25 });
    shots.push({
      at: callAt - stalledAt,
      took: Date.now() - callAt,
      ok: !shot.isError,
      age: shot.structured?.frame_age_ms,
      text: shot.text.slice(0, 160),
    });
    await page.waitForTimeout(500);
  }
  console.log(JSON.stringify(shots));
  for (const shot of shots) {
    if (shot.ok) expect(shot.age as number).toBeLessThan(GATEWAY_DEADLINE_MS);
  }
  expect(shots.filter((s) => s.at > GATEWAY_DEADLINE_MS).every((s) => !s.ok)).toBe(true);

  const notMoved = await lostMove;
  console.log(`mouse_move into the stalled link: ${notMoved.text}`);
  expect(notMoved.isError, notMoved.text).toBe(true);

  const waited = await inFlight;
  console.log(`in-flight wait_for_screen ended after ${inFlightEndedMs} ms: ${waited.text}`);
  expect(waited.isError, waited.text).toBe(true);
  expect(inFlightEndedMs).toBeLessThan(GATEWAY_DEADLINE_MS);

  // The page says so: the desktop stopped answering (514), not "Connected".
  await expect(viewer.status).not.toHaveText('Connected', { timeout: 2_000 });
  await expect(viewer.statusDetail).toHaveAttribute('title', /Guacamole status 514 /, {
    timeout: 5_000,
  });
  await expect(viewer.statusDetail).toContainText(/not answering|stopped answering/i);
  await expect.poll(readyz, { timeout: 3_000 }).toBe(503);

  const resumedAt = Date.now();
  proxy.resume();
  await viewer.waitConnected(20_000);
  const usableMs = Date.now() - resumedAt;
  const after = await callTool(mcp, 'take_screenshot', {});
  console.log(`connected again ${usableMs} ms after the link resumed`);
  expect(after.isError, after.text).toBe(false);
  await expect.poll(readyz, { timeout: 5_000 }).toBe(200);
});
