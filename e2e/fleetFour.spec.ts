// The fleet with four desktops (issue 21's Must show): the stack's sandboxed "Desktop" and three
// small real Xvnc desktops (640×400, each its own root colour and an xterm somewhere else), each
// with its control window open and an MCP client (the SDK's) clicking in a loop in autopilot.
// The fleet page shows four live tiles whose pixels match each desktop's `xwd -root` scaled
// (mean colours over a grid, and closer to their own desktop than to any other); an approval
// from desktop 3 is answered on the fleet page and its click reaches desktop 3's X only; Stop
// all stops all four (every loop is refused, and nothing more reaches any X); a tile opens the
// full viewer.
/// <reference lib="dom" />
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { startLocalDesktop, type TcpLocalDesktop } from '@overlay-companion/gateway';
import { captureRoot } from '@overlay-companion/gateway/testing';
import { API, type DesktopView } from '@overlay-companion/protocol';
import type { BrowserContext, Page } from '@playwright/test';
import { registerSecret } from '../apps/bridge/src/testing/testLogs.js';
import { expect, test } from './fixtures.js';
import {
  callTool,
  connectMcp,
  openViewerAt,
  setViewerMode,
  viewerRole,
} from './support/controlPlane.js';
import { adminSession, signInContextAs } from './support/signIn.js';
import type { RunningStack } from './support/bridgeProcess.js';
import { fleetTile, listDesktops, removeDesktopsBut } from './support/fleetPage.js';
import { pointerLocation } from './support/xdesktop.js';

const run = promisify(execFile);

test.describe.configure({ mode: 'serial' });

const PASSWORD = 'f0ur!pw';
/** The extra desktops: root colour and where their xterm sits. */
const EXTRA = [
  { name: 'Two', root: '#2a7f3f', xterm: '30x8+20+20' },
  { name: 'Three', root: '#3040b0', xterm: '30x8+300+200' },
  { name: 'Four', root: '#b08020', xterm: '30x8+300+20' },
] as const;
/** The grid the pictures are compared on (cells of mean colour). */
const GRID = { cols: 8, rows: 5 };
/** Between one loop's clicks: four loops on one token stay under its call rate, mostly. */
const LOOP_PAUSE_MS = 150;
/** Where desktop 3's approved click goes: no loop ever clicks there. */
const APPROVED = { x: 333, y: 222 };

interface Fleet {
  id: string;
  env: NodeJS.ProcessEnv;
  ai: Client;
  viewer: Page;
  loop?: Loop;
}

interface Loop {
  stop: () => void;
  /** Resolves when the loop ends: stopped, or refused (the reason). */
  done: Promise<string>;
  clicks: number;
}

let stack: RunningStack;
/** The stack's own desktop (kept when the others are removed). */
let firstId: string | undefined;
let extra: TcpLocalDesktop[] = [];
let desktops: Fleet[] = [];
let context: BrowserContext;
let fleet: Page;

/** Clicks in a loop at spots of its own (never APPROVED) until stopped or refused. */
function clickLoop(ai: Client, index: number): Loop {
  let stopped = false;
  const loop: Loop = { stop: () => (stopped = true), done: Promise.resolve(''), clicks: 0 };
  loop.done = (async () => {
    for (let i = 0; !stopped; i++) {
      const spot = { x: 40 + index * 10 + (i % 5) * 7, y: 300 + (i % 3) * 11 };
      const outcome = await callTool(ai, 'click_at', spot);
      // The four share one token, whose call rate is limited: wait as told, then go on.
      const retry = /^rate_limited: .*\(retry_after_ms: (\d+)\)/.exec(outcome.text);
      if (retry !== null) {
        await new Promise((resolve) => setTimeout(resolve, Number(retry[1]) + 50));
        continue;
      }
      if (outcome.isError) return outcome.text;
      loop.clicks++;
      await new Promise((resolve) => setTimeout(resolve, LOOP_PAUSE_MS));
    }
    return 'stopped';
  })();
  return loop;
}

/** Mean colour per grid cell of an RGBA picture. */
function gridMeans(rgba: Uint8Array | Buffer, width: number, height: number): number[] {
  const sums = new Float64Array(GRID.cols * GRID.rows * 4);
  for (let y = 0; y < height; y++) {
    const row = Math.min(GRID.rows - 1, Math.floor((y * GRID.rows) / height));
    for (let x = 0; x < width; x++) {
      const cell =
        (row * GRID.cols + Math.min(GRID.cols - 1, Math.floor((x * GRID.cols) / width))) * 4;
      const at = (y * width + x) * 4;
      sums[cell]! += rgba[at]!;
      sums[cell + 1]! += rgba[at + 1]!;
      sums[cell + 2]! += rgba[at + 2]!;
      sums[cell + 3]! += 1;
    }
  }
  const means: number[] = [];
  for (let c = 0; c < sums.length; c += 4) {
    for (let k = 0; k < 3; k++) means.push(sums[c + k]! / sums[c + 3]!);
  }
  return means;
}

/** The largest difference of any cell's mean colour channel. */
function worstCell(a: readonly number[], b: readonly number[]): number {
  return Math.max(...a.map((v, i) => Math.abs(v - (b[i] ?? 0))));
}

const tile = fleetTile;

async function tileMeans(id: string): Promise<number[] | undefined> {
  const picture = await tile(fleet, id)
    .locator('canvas')
    .evaluate((canvas: HTMLCanvasElement) => {
      const context2d = canvas.getContext('2d');
      if (context2d === null || canvas.width === 0 || canvas.height === 0) return undefined;
      const { data } = context2d.getImageData(0, 0, canvas.width, canvas.height);
      return { data: Array.from(data), width: canvas.width, height: canvas.height };
    });
  if (picture === undefined) return undefined;
  return gridMeans(Uint8Array.from(picture.data), picture.width, picture.height);
}

test.beforeAll(async ({ browser, stack: running }) => {
  test.setTimeout(240_000);
  stack = running;
  const admin = await adminSession(stack);
  const ids: string[] = [];
  for (const spec of EXTRA) {
    const desktop = await startLocalDesktop({
      rfbTcp: true,
      password: PASSWORD,
      width: 640,
      height: 400,
      windowManager: false,
      xterm: { command: ['sh', '-c', 'echo ready; exec cat'], geometry: spec.xterm },
    });
    extra.push(desktop);
    await run('xsetroot', ['-solid', spec.root], { env: desktop.env });
    const added = await admin.request(API.desktops, {
      body: {
        name: spec.name,
        kind: 'vnc',
        params: { host: '127.0.0.1', port: desktop.port },
        secrets: { password: PASSWORD },
      },
    });
    expect(added.status, await added.clone().text()).toBe(201);
    ids.push(((await added.json()) as DesktopView).id);
  }
  registerSecret(PASSWORD);
  const ai1 = await connectMcp(stack);
  expect((await callTool(ai1, 'list_desktops', {})).isError).toBe(false);
  const listed = await listDesktops(admin);
  const first = listed.find((d) => !ids.includes(d.id));
  if (first === undefined) throw new Error(`no first desktop: ${JSON.stringify(listed)}`);
  firstId = first.id;

  context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  await signInContextAs(context, stack.url, stack.admin);
  const all = [
    { id: first.id, env: stack.xEnv },
    ...ids.map((id, i) => ({ id, env: extra[i]!.env })),
  ];
  for (const [i, d] of all.entries()) {
    const ai = i === 0 ? ai1 : await connectMcp(stack);
    expect((await callTool(ai, 'select_desktop', { desktop: d.id })).isError).toBe(false);
    const viewer = await context.newPage();
    await openViewerAt(viewer, stack, `/?desktop=${d.id}`);
    await expect.poll(() => viewerRole(viewer)).toBe('control');
    await setViewerMode(viewer, 'autopilot');
    desktops.push({ ...d, ai, viewer });
  }
  fleet = await context.newPage();
  await fleet.goto(new URL('/fleet', stack.url).toString());
});

test.afterAll(async () => {
  for (const d of desktops) d.loop?.stop();
  await Promise.all(desktops.map((d) => d.loop?.done ?? Promise.resolve('')));
  for (const d of desktops) await d.ai.close();
  await context?.close();
  if (firstId !== undefined) await removeDesktopsBut(await adminSession(stack), firstId);
  await Promise.all(extra.map((d) => d.stop()));
  extra = [];
  desktops = [];
});

test("four live tiles while each desktop's AI clicks in a loop; each matches its own xwd -root", async () => {
  test.setTimeout(120_000);
  await expect(fleet.getByTestId('fleet-tile')).toHaveCount(4, { timeout: 15_000 });
  desktops.forEach((d, i) => (d.loop = clickLoop(d.ai, i)));
  // Every AI gets clicks through, and its tile says what it last did.
  await expect
    .poll(() => Math.min(...desktops.map((d) => d.loop?.clicks ?? 0)), { timeout: 30_000 })
    .toBeGreaterThanOrEqual(3);
  for (const d of desktops) {
    await expect(
      tile(fleet, d.id).getByTestId('fleet-tile-last').filter({ hasText: 'click_at' }),
    ).not.toHaveCount(0);
  }
  const roots = await Promise.all(
    desktops.map(async (d) => {
      const root = await captureRoot(d.env);
      return gridMeans(root.rgba, root.width, root.height);
    }),
  );
  for (const [i, d] of desktops.entries()) {
    // Thumbnails are lossy and scaled twice (gateway, canvas): close, not exact.
    await expect
      .poll(
        async () => {
          const seen = await tileMeans(d.id);
          return seen === undefined ? Infinity : worstCell(seen, roots[i]!);
        },
        { timeout: 20_000, message: `tile ${i + 1} against its xwd -root` },
      )
      .toBeLessThan(24);
    const seen = (await tileMeans(d.id))!;
    const own = worstCell(seen, roots[i]!);
    for (const [j, other] of roots.entries()) {
      if (j !== i)
        expect(worstCell(seen, other), `tile ${i + 1} against desktop ${j + 1}`).toBeGreaterThan(
          own + 20,
        );
    }
  }
});

test("an approval from desktop 3 is answered on the fleet page; its click reaches desktop 3's X only", async () => {
  const three = desktops[2]!;
  three.loop?.stop();
  expect(await three.loop?.done).toBe('stopped');
  await setViewerMode(three.viewer, 'assist');
  const pending = callTool(three.ai, 'click_at', APPROVED);
  const approval = fleet.getByTestId('fleet-approval');
  await expect(approval).toHaveCount(1, { timeout: 10_000 });
  await expect(approval).toHaveAttribute('data-desktop-id', three.id);
  await expect(approval).toContainText('Three');
  const approve = approval.getByTestId('fleet-approval-approve');
  await expect(approve).not.toHaveAttribute('aria-disabled', 'true');
  await approve.click();
  const clicked = await pending;
  expect(clicked.isError, clicked.text).toBe(false);
  await expect.poll(() => pointerLocation(three.env)).toEqual(APPROVED);
  for (const d of desktops) {
    if (d !== three) expect(await pointerLocation(d.env)).not.toEqual(APPROVED);
  }
  await expect(approval).toHaveCount(0);
});

test('Stop all stops all four: every loop is refused and nothing more reaches any X', async () => {
  // Desktop 3 back in autopilot with its loop, so all four are busy when Stop all comes.
  const three = desktops[2]!;
  await setViewerMode(three.viewer, 'autopilot');
  three.loop = clickLoop(three.ai, 2);
  await expect.poll(() => three.loop?.clicks ?? 0, { timeout: 15_000 }).toBeGreaterThan(0);
  await fleet.getByTestId('fleet-stop-all').click();
  for (const d of desktops) {
    await expect(tile(fleet, d.id).getByTestId('fleet-tile-mode')).toHaveText('Passive');
    const ended = await d.loop?.done;
    expect(ended).toMatch(/^(permission_denied|cancelled): /);
  }
  const before = await Promise.all(desktops.map((d) => pointerLocation(d.env)));
  for (const d of desktops) {
    const refused = await callTool(d.ai, 'click_at', { x: 140, y: 150 });
    expect(refused.isError).toBe(true);
    expect(refused.text).toMatch(/^permission_denied: click_at is not allowed in passive mode/);
  }
  expect(await Promise.all(desktops.map((d) => pointerLocation(d.env)))).toEqual(before);
});

test('a tile opens the full viewer of its desktop', async () => {
  const four = desktops[3]!;
  const opened = await context.newPage();
  await opened.goto(fleet.url());
  await tile(opened, four.id).getByTestId('fleet-tile-open').click();
  await expect(opened).toHaveURL(new RegExp(`/\\?desktop=${four.id}$`));
  await expect(opened.getByTestId('connection-label')).toHaveText('Connected', {
    timeout: 30_000,
  });
  await expect(opened.getByTestId('charge-button')).toContainText('Four');
  await opened.close();
});
