// Recording an AI session end to end (P12's "must show"), on the real stack (bridge, gateway,
// Xvnc, Chromium): an AI session of 50 actions — clicks, typing, overlays drawn and removed, one
// the person denies, one they Stop — is recorded; the recording's AI timeline shows 50 cards with
// the right decisions; "Show me" on the audit row of an action opens the player within 100 ms of
// it; the exported video lasts as long as the recording and shows, at a click's moment, the AI
// pointer on the clicked pixel. And with the recordings' disk full (a 1 MiB tmpfs the test mounts
// over the bridge's recordings folder, as root): the desktop keeps working, the window says
// recording stopped, and once there is room again the recording resumes and names the gap.
// Admins see what the recordings take on /recordings. The stack is shared with the other specs:
// the recording settings, the desktop's mode and the recordings folder are left as found.
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { Page } from '@playwright/test';
import type { BrowserSession } from '../apps/bridge/src/testing/browserSession.js';
import { expect, test } from './fixtures.js';
import type { RunningStack } from './support/bridgeProcess.js';
import {
  callTool,
  connectMcp,
  openViewerAt,
  setViewerMode,
  startXev,
  viewerRole,
} from './support/controlPlane.js';
import { expectNoSeriousViolations, tabTo } from './support/a11y.js';
import { clearLayout, saveLayout } from './support/layouts.js';
import { adminSession, signInContext } from './support/signIn.js';
import { screenSize } from './support/xdesktop.js';
import sharp from 'sharp';

const run = promisify(execFile);

interface Settings {
  default_mode: 'off' | 'on' | 'person';
  retention?: Record<string, unknown>;
}
interface Listed {
  id: string;
  desktop: { id: string; name: string };
  started_at: number;
  ended_at: number | null;
  duration_ms: number;
  gaps: { from: number; to: number; reason: string }[];
  live: boolean;
}
interface TrackEvent {
  t: number;
  kind: string;
  tool?: string;
  decision?: string;
  point?: { x: number; y: number };
  from?: number;
  to?: number;
  reason?: string;
}

let mcp: Client | undefined;
const children: ChildProcess[] = [];
test.afterEach(async () => {
  await mcp?.close();
  mcp = undefined;
  for (const child of children.splice(0)) child.kill();
});

async function ok(client: Client, name: string, args: Record<string, unknown>) {
  const outcome = await callTool(client, name, args);
  expect(outcome.isError, `${name}: ${outcome.text}`).toBe(false);
  return outcome;
}

async function json<T>(
  session: BrowserSession,
  path: string,
  init?: Parameters<BrowserSession['request']>[1],
): Promise<T> {
  const res = await session.request(path, init);
  expect(
    res.ok,
    `${init?.method ?? 'GET'} ${path}: ${res.status} ${res.ok ? '' : await res.text()}`,
  ).toBe(true);
  return (await res.json()) as T;
}

const putSettings = (admin: BrowserSession, body: Record<string, unknown>) =>
  json<Settings>(admin, '/api/settings/recording', { method: 'PUT', body });

/** The recordings of the stack's desktop, newest first. */
const listed = async (admin: BrowserSession) =>
  (await json<{ recordings: Listed[] }>(admin, '/api/recordings')).recordings;

/**
 * Turns recording off for every desktop (ending any recording of an earlier spec), returns the
 * settings as found, so the test can put them back.
 */
async function recordingOff(admin: BrowserSession): Promise<Settings> {
  const found = await json<Settings>(admin, '/api/settings/recording');
  await putSettings(admin, { default_mode: 'off' });
  await expect
    .poll(async () => (await listed(admin)).some((r) => r.live), { timeout: 15_000 })
    .toBe(false);
  return found;
}

/** Turns recording on and waits for the one new recording it starts; returns its id. */
async function newRecording(admin: BrowserSession, page: Page): Promise<string> {
  const before = new Set((await listed(admin)).map((r) => r.id));
  await putSettings(admin, { default_mode: 'on' });
  await expect(page.getByTestId('recording-indicator')).toHaveText(/Recording/, {
    timeout: 15_000,
  });
  let id = '';
  await expect
    .poll(
      async () => {
        id = (await listed(admin)).find((r) => r.live && !before.has(r.id))?.id ?? '';
        return id;
      },
      { timeout: 15_000 },
    )
    .not.toBe('');
  return id;
}

/**
 * Opens the viewer as the control window and returns the desktop's mode as found (the shared
 * stack's desktop keeps the mode an earlier spec left; the test puts it back with leaveAsFound).
 */
async function openControl(page: Page, stack: RunningStack): Promise<string> {
  await signInContext(page.context(), stack);
  await openViewerAt(page, stack, '/');
  await expect.poll(() => viewerRole(page), { timeout: 10_000 }).toBe('control');
  return page.getByTestId('mode-select').inputValue();
}

/** The viewer again, in the mode it was found in. */
async function leaveAsFound(page: Page, stack: RunningStack, mode: string): Promise<void> {
  if (new URL(page.url()).pathname !== '/') await openViewerAt(page, stack, '/');
  await expect.poll(() => viewerRole(page), { timeout: 10_000 }).toBe('control');
  await setViewerMode(page, mode);
}

/** Turns recording off and waits until the recording has ended (its end and gaps written). */
async function endRecording(admin: BrowserSession, id: string): Promise<Listed | undefined> {
  await putSettings(admin, { default_mode: 'off' });
  let found: Listed | undefined;
  await expect
    .poll(
      async () => {
        found = (await listed(admin)).find((r) => r.id === id);
        return found !== undefined && !found.live && found.ended_at !== null;
      },
      { timeout: 15_000 },
    )
    .toBe(true);
  return found;
}

/** An xterm of the test's own that swallows what is typed (cat), at a known place. */
async function typingWindow(stack: RunningStack): Promise<{ x: number; y: number }> {
  const title = `oc-rec-typing-${Date.now()}`;
  const child = spawn('xterm', ['-T', title, '-geometry', '60x10+700+420', '-e', 'cat'], {
    env: stack.xEnv,
    stdio: 'ignore',
  });
  children.push(child);
  const { stdout } = await run('xdotool', ['search', '--sync', '--onlyvisible', '--name', title], {
    env: stack.xEnv,
    timeout: 20_000,
  });
  const win = stdout.trim().split('\n')[0] ?? '';
  const geometry = (
    await run('xdotool', ['getwindowgeometry', '--shell', win], { env: stack.xEnv })
  ).stdout;
  const value = (name: string) => Number(new RegExp(`^${name}=(\\d+)`, 'm').exec(geometry)?.[1]);
  return { x: value('X') + 40, y: value('Y') + 30 };
}

/** The time of the first frame in a recording's file (where its exported video starts). */
function firstSync(stream: string): number {
  const match = /4\.sync,\d+\.(\d+)[,;]/.exec(stream);
  if (match === null) throw new Error('the recording has no frame');
  return Number(match[1]);
}

async function videoDuration(file: string): Promise<number> {
  const { stdout } = await run('ffprobe', [
    '-v',
    'error',
    '-show_entries',
    'format=duration',
    '-of',
    'csv=p=0',
    file,
  ]);
  return Number(stdout.trim());
}

async function videoSize(file: string): Promise<string> {
  const { stdout } = await run('ffprobe', [
    '-v',
    'error',
    '-select_streams',
    'v:0',
    '-show_entries',
    'stream=width,height',
    '-of',
    'csv=s=x:p=0',
    file,
  ]);
  return stdout.trim();
}

/** The RGB of one pixel of the video at `seconds` (the whole frame decoded: 4:2:0 video cannot be cropped to one pixel). */
async function videoPixel(file: string, seconds: number, x: number, y: number): Promise<number[]> {
  const width = Number((await videoSize(file)).split('x')[0]);
  const { stdout } = await run(
    'ffmpeg',
    [
      '-v',
      'error',
      '-ss',
      seconds.toFixed(3),
      '-i',
      file,
      '-frames:v',
      '1',
      '-f',
      'rawvideo',
      '-pix_fmt',
      'rgb24',
      '-',
    ],
    { encoding: 'buffer', maxBuffer: 256 * 1024 * 1024 },
  );
  const o = (y * width + x) * 3;
  return [...(stdout as unknown as Buffer).subarray(o, o + 3)];
}

test('an AI session of 50 actions: 50 cards with their decisions, Show me within 100 ms, a video with the pointer on the clicked pixel', async ({
  page,
  stack,
}) => {
  test.setTimeout(240_000);
  const admin = await adminSession(stack);
  const found = await recordingOff(admin);
  const modeFound = await openControl(page, stack);
  try {
    await setViewerMode(page, 'autopilot');
    const recordingId = await newRecording(admin, page);
    const typing = await typingWindow(stack);
    mcp = await connectMcp(stack);

    // 48 actions the policy allows: 16 clicks, 10 typed texts, 11 overlays drawn and removed.
    let actions = 0;
    let pausedClick: { x: number; y: number } | undefined;
    for (let i = 0; i < 11; i++) {
      const drawn = await ok(mcp, 'draw_overlay', {
        x: 60 + i * 20,
        y: 60,
        width: 120,
        height: 80,
        color: '#00c000',
        label: `Step ${i + 1}`,
      });
      actions++;
      const point = { x: typing.x + (i % 4) * 30, y: typing.y + (i % 3) * 15 };
      await ok(mcp, 'click_at', { ...point, intent: `Focus the terminal (${i + 1})` });
      actions++;
      if (i === 5) {
        // This click's moment is checked in the video: the next action comes after its marker.
        pausedClick = point;
        await page.waitForTimeout(1_500);
      }
      if (i < 10) {
        await ok(mcp, 'type_text', { text: `step ${i + 1} `, intent: 'Type a note' });
        actions++;
      }
      await ok(mcp, 'remove_overlay', {
        overlay_id: (drawn.structured as { overlay_id: string }).overlay_id,
      });
      actions++;
    }
    for (let i = 0; i < 5; i++) {
      await ok(mcp, 'click_at', { x: typing.x + 100 + i * 10, y: typing.y + 40 });
      actions++;
    }
    expect(actions).toBe(48);

    // The person denies one, and Stops the next (the mode drops to passive).
    await setViewerMode(page, 'assist');
    const denied = callTool(mcp, 'click_at', {
      x: typing.x,
      y: typing.y,
      intent: 'One the person refuses',
    });
    await expect(page.getByTestId('confirm-panel')).toBeVisible({ timeout: 15_000 });
    await page.getByRole('button', { name: 'Deny', exact: true }).click();
    expect((await denied).isError).toBe(true);
    const stopped = callTool(mcp, 'click_at', {
      x: typing.x + 5,
      y: typing.y,
      intent: 'One the person stops',
    });
    await expect(page.getByTestId('confirm-panel')).toBeVisible({ timeout: 15_000 });
    await page.getByRole('button', { name: 'Stop', exact: true }).click();
    expect((await stopped).isError).toBe(true);
    await expect(page.getByTestId('mode-select')).toHaveValue('passive');
    // Some picture after the last action, so the recording runs past it.
    await page.waitForTimeout(1_500);

    // The event track: 50 AI actions, with their decisions.
    const events = (
      await json<{ events: TrackEvent[] }>(admin, `/api/recordings/${recordingId}/events`)
    ).events;
    const ai = events.filter((e) => e.kind === 'ai.action');
    expect(ai).toHaveLength(50);
    const decisions = (list: { decision?: string | null }[]) =>
      list.reduce<Record<string, number>>(
        (n, e) => ({ ...n, [e.decision ?? '?']: (n[e.decision ?? '?'] ?? 0) + 1 }),
        {},
      );
    expect(decisions(ai)).toEqual({ allowed: 48, denied: 1, stopped: 1 });
    expect(ai.at(-2)).toMatchObject({ tool: 'click_at', decision: 'denied' });
    expect(ai.at(-1)).toMatchObject({ tool: 'click_at', decision: 'stopped' });

    // "Show me" on the audit row of the denied click lands in the player within 100 ms of it.
    await page.goto(new URL('/audit', stack.url).toString());
    const row = page.getByRole('row').filter({ hasText: 'One the person refuses' }).first();
    const showMe = row.getByRole('link', { name: /Show me/ });
    await expect(showMe).toBeVisible({ timeout: 15_000 });
    const href = (await showMe.getAttribute('href')) ?? '';
    expect(href).toMatch(new RegExp(`^/recordings/${recordingId}\\?t=\\d+$`));
    await showMe.click();
    const seek = page.getByTestId('player-seek');
    await expect(seek).toBeVisible({ timeout: 30_000 });
    const deniedAt = ai.at(-2)?.t ?? 0;
    await expect
      .poll(async () => Math.abs(Number(await seek.getAttribute('data-at')) - deniedAt), {
        timeout: 15_000,
      })
      .toBeLessThanOrEqual(100);

    // The AI's timeline: a card for each of the 50, with its decision.
    const cards = page.getByTestId('ai-card');
    await expect(cards).toHaveCount(50, { timeout: 30_000 });
    const shown = await cards.evaluateAll((list) =>
      list.map((c) => ({ decision: c.getAttribute('data-decision') })),
    );
    expect(decisions(shown)).toEqual({ allowed: 48, denied: 1, stopped: 1 });
    await expect(cards.filter({ hasText: 'One the person refuses' })).toHaveAttribute(
      'data-decision',
      'denied',
    );
    await expect(cards.filter({ hasText: 'One the person stops' })).toHaveAttribute(
      'data-decision',
      'stopped',
    );

    // End the recording, and export it as video the way a person does: the recording's page
    // offers "Export video (MP4)" once it has ended.
    const recording = await endRecording(admin, recordingId);
    const stream = await (await admin.request(`/api/recordings/${recordingId}/stream`)).text();
    const start = firstSync(stream);
    await page.goto(new URL(`/recordings/${recordingId}`, stack.url).toString());
    const exportLink = page.getByRole('link', { name: 'Export video (MP4)' });
    await expect(exportLink).toHaveAttribute('href', `/api/recordings/${recordingId}/export.mp4`);
    const dir = await mkdtemp(join(tmpdir(), 'oc-e2e-export-'));
    try {
      const file = join(dir, 'recording.mp4');
      const [download] = await Promise.all([page.waitForEvent('download'), exportLink.click()]);
      await download.saveAs(file);
      expect(download.suggestedFilename()).toBe(`recording-${recordingId}.mp4`);
      // As large as the desktop: the clicked pixel is the video's pixel.
      const sizes = [...stream.matchAll(/4\.size,1\.0,\d+\.(\d+),\d+\.(\d+);/g)].map(
        (m) => `${m[1]}x${m[2]}`,
      );
      expect(await videoSize(file), `the desktop's sizes: ${sizes.join(', ')}`).toBe(sizes.at(-1));
      // As long as the recording, from its first frame to its end (a frame of 100 ms either way).
      const expected = ((recording?.ended_at ?? 0) - start) / 1000;
      expect(Math.abs((await videoDuration(file)) - expected)).toBeLessThanOrEqual(0.25);
      // At the paused click's moment, the AI pointer's mark is on the clicked pixel; before, not.
      const click = ai.find(
        (e) =>
          e.tool === 'click_at' &&
          e.point?.x === pausedClick?.x &&
          e.point?.y === pausedClick?.y &&
          e.decision === 'allowed',
      );
      expect(click?.point).toEqual(pausedClick);
      const at = ((click?.t ?? 0) - start) / 1000;
      const red = (p: number[]) => p[0]! > 170 && p[1]! < 110 && p[2]! < 150;
      const { x, y } = pausedClick ?? { x: 0, y: 0 };
      expect(red(await videoPixel(file, at + 0.4, x, y)), 'the pointer on the clicked pixel').toBe(
        true,
      );
      expect(red(await videoPixel(file, at + 1.3, x, y)), 'the pointer gone a second later').toBe(
        false,
      );
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  } finally {
    await putSettings(admin, { default_mode: found.default_mode });
    await leaveAsFound(page, stack, modeFound);
  }
});

test("the cockpit's live AI timeline: cards as the AI acts, thumbnails with the mask black, by keyboard, axe-clean at 390, 1280 and 3840 px", async ({
  page,
  stack,
}) => {
  test.setTimeout(180_000);
  const admin = await adminSession(stack);
  const found = await recordingOff(admin);
  // A blue root, and a mask over part of it: the recording, and so every thumbnail, has it black.
  await run('xsetroot', ['-solid', '#3366cc'], { env: stack.xEnv });
  const desktop = await screenSize(stack.xEnv);
  const mask = { x: 100, y: desktop.height - 220, width: 240, height: 120, label: 'Bank' };
  await saveLayout(stack, {
    monitors: [{ x: 0, y: 0, width: desktop.width, height: desktop.height }],
    masks: [mask],
  });
  const modeFound = await openControl(page, stack);
  try {
    await expect(page.locator('[data-privacy-mask]')).toHaveCount(1);
    await setViewerMode(page, 'autopilot');
    const button = page.getByTestId('live-timeline-button');
    // Only while the desktop is recorded.
    await expect(button).toHaveCount(0);
    const recordingId = await newRecording(admin, page);

    // Opened from the keyboard, before the AI does anything.
    await button.focus();
    await page.keyboard.press('Enter');
    const panel = page.getByTestId('live-timeline');
    await expect(panel).toBeVisible();
    await expect(panel).toContainText('No AI actions yet');

    // The AI acts: the cards come in while the panel is open, no reload.
    mcp = await connectMcp(stack);
    await ok(mcp, 'draw_overlay', { x: 500, y: 100, width: 200, height: 100, label: 'Here' });
    await ok(mcp, 'click_at', { x: 600, y: 150, intent: 'Press the button in the box' });
    await ok(mcp, 'click_at', { x: 700, y: 200, intent: 'And the next one' });
    const cards = panel.getByTestId('ai-card');
    await expect(cards).toHaveCount(3, { timeout: 15_000 });
    await expect(cards.nth(1)).toContainText('Press the button in the box');
    await expect(cards.nth(1)).toContainText('Allowed by the mode');
    await expect(cards.nth(1)).toHaveAttribute('data-decision', 'allowed');
    await expect(cards.nth(0).locator('.ai-card__area')).toHaveCount(1);
    await expect(cards.nth(1).locator('.ai-card__point')).toHaveCount(1);

    // The thumbnail is the recording's picture: inside the mask every pixel is black, and the
    // blue root shows around it.
    // (asked again, with `again=<n>`, if the first asking came before the file held the moment)
    const src = (await cards.nth(1).locator('img').getAttribute('src')) ?? '';
    expect(src).toMatch(
      new RegExp(`^/api/recordings/${recordingId}/frame\\?t=\\d+&width=240(&again=\\d)?$`),
    );
    // The browser shows it (the person's own session may read it).
    await expect
      .poll(
        () =>
          cards
            .nth(1)
            .locator('img')
            .evaluate((img: HTMLImageElement) => img.naturalWidth),
        {
          timeout: 15_000,
        },
      )
      .toBe(240);
    const thumb = await admin.request(src);
    expect(thumb.status).toBe(200);
    const { data, info } = await sharp(Buffer.from(await thumb.arrayBuffer()))
      .removeAlpha()
      .raw()
      .toBuffer({ resolveWithObject: true });
    const k = info.width / desktop.width;
    let inside = 0;
    let lit = 0;
    let blueAround = 0;
    for (let y = 0; y < info.height; y++) {
      for (let x = 0; x < info.width; x++) {
        const [r = 0, g = 0, b = 0] = data.subarray((y * info.width + x) * 3);
        // Well inside (two thumbnail pixels from the edge: the scaling blends the border).
        const inMask =
          x >= mask.x * k + 2 &&
          x < (mask.x + mask.width) * k - 2 &&
          y >= mask.y * k + 2 &&
          y < (mask.y + mask.height) * k - 2;
        if (inMask) {
          inside++;
          if (r + g + b > 24) lit++;
        } else if (Math.abs(r - 0x33) < 12 && Math.abs(g - 0x66) < 12 && Math.abs(b - 0xcc) < 12) {
          blueAround++;
        }
      }
    }
    expect(inside).toBeGreaterThan(100);
    expect(lit, 'pixels of the masked area that are not black in the thumbnail').toBe(0);
    expect(blueAround).toBeGreaterThan(100);

    // By keyboard: Tab reaches a card's link to the player; Escape closes, focus back on the button.
    const open = cards.nth(1).getByRole('link', { name: /^Open click_at at .* in the player/ });
    await expect(open).toHaveAttribute('href', new RegExp(`^/recordings/${recordingId}\\?t=\\d+$`));
    await tabTo(page, open, { max: 20 });

    for (const size of [
      { width: 390, height: 844 },
      { width: 1280, height: 800 },
      { width: 3840, height: 2160 },
    ]) {
      await page.setViewportSize(size);
      await expect(panel).toBeVisible();
      // As the person's keys would at this size: a resize scrolls nothing to the focused link (on a
      // phone the timeline is a sheet of half the window, so it may sit below the fold), and
      // focus() on the focused link does nothing; Shift+Tab, Tab lands on it again, in view.
      await page.keyboard.press('Shift+Tab');
      await page.keyboard.press('Tab');
      await expect(open).toBeFocused();
      await expect(open).toBeInViewport();
      await expectNoSeriousViolations(page, `the live AI timeline at ${size.width} px`);
    }
    await page.keyboard.press('Escape');
    await expect(panel).toHaveCount(0);
    await expect(button).toBeFocused();
    await endRecording(admin, recordingId);
    await expect(button).toHaveCount(0, { timeout: 15_000 });
  } finally {
    await putSettings(admin, { default_mode: found.default_mode });
    await clearLayout(stack);
    await run('xsetroot', ['-solid', 'black'], { env: stack.xEnv });
    await leaveAsFound(page, stack, modeFound);
  }
});

test('with the recordings’ disk full: the desktop keeps working, the window says recording stopped, and the file names the gap', async ({
  page,
  stack,
}) => {
  test.setTimeout(180_000);
  const admin = await adminSession(stack);
  const cmdline = (await readFile(`/proc/${stack.pid}/cmdline`, 'utf8')).split('\0');
  const dataDir = cmdline[cmdline.indexOf('--data-dir') + 1] ?? '';
  const dir = join(dataDir, 'recordings');
  const found = await recordingOff(admin);
  try {
    await run('mount', ['-t', 'tmpfs', '-o', 'size=1m,mode=0700', 'tmpfs', dir]);
  } catch (error) {
    await putSettings(admin, { default_mode: found.default_mode });
    test.skip(
      true,
      `cannot mount a tmpfs over the recordings folder (${String((error as Error).message).split('\n')[0]}); run as root`,
    );
    return;
  }
  let recordingId = '';
  let modeFound: string | undefined;
  try {
    // Keep no free space on top (the bridge would pause recording on a disk this small before
    // it is full): this is the disk really filling up.
    await putSettings(admin, { retention: { min_free_bytes: 0 } });
    // Most of the room taken, to be handed back later.
    const filler = join(dir, 'filler');
    await writeFile(filler, Buffer.alloc(800 * 1024));
    modeFound = await openControl(page, stack);
    recordingId = await newRecording(admin, page);
    // A busy corner of the desktop fills the disk.
    const busy = spawn(
      'xterm',
      [
        '-geometry',
        '80x20+20+20',
        '-e',
        'sh',
        '-c',
        'while :; do head -c 2000 /dev/urandom | base64; sleep 0.05; done',
      ],
      { env: stack.xEnv, stdio: 'ignore' },
    );
    children.push(busy);
    const stoppedNotice = page.getByTestId('recording-stopped');
    await expect(stoppedNotice).toContainText(
      /Recording stopped: .*ENOSPC.*the desktop keeps working/,
      { timeout: 30_000 },
    );

    // The desktop keeps working: the AI's click reaches X, its screenshot comes back.
    const xev = await startXev(stack.xEnv);
    try {
      await setViewerMode(page, 'autopilot');
      mcp = await connectMcp(stack);
      await ok(mcp, 'click_at', { x: xev.rect.x + 30, y: xev.rect.y + 30 });
      await expect.poll(() => xev.log().includes('ButtonPress'), { timeout: 10_000 }).toBe(true);
      const shot = await ok(mcp, 'take_screenshot', {});
      expect(shot.image?.length ?? 0).toBeGreaterThan(1000);
      await setViewerMode(page, modeFound);
    } finally {
      xev.stop();
    }

    // Room again: the recording resumes on its own and the window's notice goes.
    busy.kill();
    await rm(filler);
    await expect(stoppedNotice).toHaveCount(0, { timeout: 30_000 });
    await expect(page.getByTestId('recording-indicator')).toHaveText(/Recording/);

    // Ended, the recording names the gap: in the list, the event track and the index file.
    const recording = await endRecording(admin, recordingId);
    expect(recording?.gaps.length, JSON.stringify(recording)).toBeGreaterThanOrEqual(1);
    const gap = recording?.gaps[0];
    expect(gap?.reason).toMatch(/ENOSPC/);
    expect(gap?.to).toBeGreaterThan(gap?.from ?? Infinity);
    const events = (
      await json<{ events: TrackEvent[] }>(admin, `/api/recordings/${recordingId}/events`)
    ).events;
    expect(events.find((e) => e.kind === 'gap')).toMatchObject({
      from: gap?.from,
      to: gap?.to,
      reason: gap?.reason,
    });
    expect(
      events.some((e) => e.kind === 'recording.stopped' && /ENOSPC/.test(e.reason ?? '')),
    ).toBe(true);
    const index = await readFile(join(dir, `${recordingId}.index.jsonl`), 'utf8');
    expect(index).toContain(`"type":"gap","from":${gap?.from},"to":${gap?.to}`);
  } finally {
    // Leave the stack as found: the recording (its files are on the tmpfs) deleted, the mount
    // gone, the settings back.
    if (recordingId !== '') {
      await putSettings(admin, { default_mode: 'off' }).catch(() => undefined);
      await expect
        .poll(async () => (await listed(admin)).find((r) => r.id === recordingId)?.live ?? false, {
          timeout: 15_000,
        })
        .toBe(false)
        .catch(() => undefined);
      await admin.request(`/api/recordings/${recordingId}`, { method: 'DELETE' });
    }
    await run('umount', [dir]).catch(() => run('umount', ['-l', dir]));
    await putSettings(admin, {
      default_mode: found.default_mode,
      ...(found.retention === undefined ? {} : { retention: found.retention }),
    });
    if (modeFound !== undefined) await leaveAsFound(page, stack, modeFound);
  }
});

test('admins see what the recordings take on /recordings: in all, the limits, the disk, per desktop and per person', async ({
  page,
  stack,
}) => {
  await signInContext(page.context(), stack);
  const admin = await adminSession(stack);
  const storage = await json<{ total_bytes: number; count: number }>(
    admin,
    '/api/recordings/storage',
  );
  await page.goto(new URL('/recordings', stack.url).toString());
  const section = page.getByTestId('recordings-storage');
  await expect(section).toBeVisible({ timeout: 15_000 });
  await expect(page.getByTestId('storage-total')).toContainText(`${storage.count} recording`);
  await expect(page.getByTestId('storage-total')).toContainText(/The disk has .* free of /);
  await expect(page.getByTestId('storage-limits')).toContainText(/^Recordings are kept /);
  if (storage.count > 0) {
    await expect(page.getByTestId('storage-desktops')).toContainText('Desktop');
    await expect(page.getByTestId('storage-people')).toContainText(stack.admin.username);
    await expect(page.getByTestId('storage-oldest')).toBeVisible();
  }
  await expectNoSeriousViolations(page, '/recordings with the storage view');
});
