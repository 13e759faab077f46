// Recording and replay end to end (P12, the web side): the admin makes recording the bridge's
// default, the viewer shows the recording indicator, an MCP client draws an overlay and clicks in
// autopilot, and then the audit page's "Show me" on the click lands in the player at that moment;
// the player's keys and speed work, axe checks the page, and the page is photographed at a
// phone's, a laptop's and a 4K width (attached). The second test checks what the event track
// adds: the AI's pointer at the clicked pixel, the overlay composited until it was removed,
// markers on the seek bar, the events beside the player and the AI's timeline. Everything is
// real: bridge, gateway, Xvnc, Chromium, the recording the bridge wrote.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { Locator, Page } from '@playwright/test';
import { expect, test } from './fixtures.js';
import type { RunningStack } from './support/bridgeProcess.js';
import { callTool, connectMcp, openControlViewer } from './support/controlPlane.js';
import { recordingOn } from './support/recordingOn.js';
import { expectNoSeriousViolations } from './support/a11y.js';
import { MIN_PICTURE_LIT, playerPictureLit } from './support/uiShots.js';

const run = promisify(execFile);
/** The root's colour while this file records: a picture the player's "not black" probes can see. */
const LIT_ROOT = '#3366cc';

let mcp: Client | undefined;

let recordingBack: (() => Promise<void>) | undefined;

test.afterEach(async ({ stack }) => {
  await mcp?.close();
  mcp = undefined;
  await recordingBack?.();
  recordingBack = undefined;
  // Back to the black root the other specs expect (privacy.spec leaves it so too).
  await run('xsetroot', ['-solid', 'black'], { env: stack.xEnv });
});

async function ok(client: Client, name: string, args: Record<string, unknown>) {
  const outcome = await callTool(client, name, args);
  expect(outcome.isError, `${name}: ${outcome.text}`).toBe(false);
  return outcome;
}

/**
 * Records a short AI session (an overlay drawn, a click inside it, the overlay removed), then
 * follows the audit row's "Show me" of the click into the player and checks that it opens at the
 * click's moment; returns the player's seek bar.
 */
async function recordAndShowClick(page: Page, stack: RunningStack): Promise<Locator> {
  // The picture must not depend on what earlier specs left on the shared desktop: an xterm
  // alone on a black root is almost black, under what the player's probes take for a picture.
  await run('xsetroot', ['-solid', LIT_ROOT], { env: stack.xEnv });
  recordingBack = await recordingOn(stack);

  await openControlViewer(page, stack, 'autopilot');
  await expect(page.getByTestId('recording-indicator')).toHaveText(/Recording/, {
    timeout: 15_000,
  });

  mcp = await connectMcp(stack);
  const drawn = await ok(mcp, 'draw_overlay', {
    x: 100,
    y: 80,
    width: 220,
    height: 120,
    color: '#00c000',
    label: 'Here',
  });
  const overlayId = (drawn.structured as { overlay_id: string }).overlay_id;
  await ok(mcp, 'click_at', { x: 150, y: 130, intent: 'Point at the box' });
  // Some picture after the click, so the recording runs past it.
  await page.waitForTimeout(1_500);
  await ok(mcp, 'remove_overlay', { overlay_id: overlayId });
  // And after the removal: the recording is read as it is on disk now, live.
  await page.waitForTimeout(4_000);

  await page.goto(new URL('/audit', stack.url).toString());
  const row = page.getByRole('row').filter({ hasText: 'click_at' }).first();
  const showMe = row.getByRole('link', { name: /Show me/ });
  await expect(showMe).toBeVisible({ timeout: 15_000 });
  const href = (await showMe.getAttribute('href')) ?? '';
  expect(href).toMatch(/^\/recordings\/[^/?]+\?t=\d+$/);
  await showMe.click();
  await expect(page).toHaveURL(/\/recordings\/[^/?]+\?t=\d+$/);
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('Recordings');

  // The player opens at that moment (within 100 ms).
  const at = Number(new URL(href, stack.url).searchParams.get('t'));
  const seek = page.getByTestId('player-seek');
  await expect(seek).toBeVisible({ timeout: 30_000 });
  await expect
    .poll(async () => Math.abs(Number(await seek.getAttribute('data-at')) - at), {
      timeout: 15_000,
    })
    .toBeLessThanOrEqual(100);
  return seek;
}

test('"Show me" on an audit row opens the recording at that moment; keys and speed work', async ({
  page,
  stack,
}) => {
  test.setTimeout(120_000);
  const seek = await recordAndShowClick(page, stack);

  // Keys on the player: Home goes to the start, ] doubles the speed, ← stops at the start.
  await seek.focus();
  await page.keyboard.press('Home');
  const start = Number(await seek.getAttribute('min'));
  await expect(seek).toHaveAttribute('data-at', String(start));
  await page.keyboard.press(']');
  await expect(page.getByTestId('player-speed')).toHaveValue('2');
  await page.keyboard.press('ArrowLeft');
  await expect(seek).toHaveAttribute('data-at', String(start));
  await page.keyboard.press('ArrowRight');
  const end = Number(await seek.getAttribute('max'));
  await expect(seek).toHaveAttribute('data-at', String(Math.min(end, start + 5_000)));
  await page.keyboard.press('End');
  await expect(seek).toHaveAttribute('data-at', String(end));

  // Played at 4×, a second of playing moves the picture on about four seconds.
  await page.keyboard.press('Home');
  await page.getByTestId('player-speed').selectOption('4');
  await page.getByTestId('player-play').click();
  await expect(page.getByTestId('player-play')).toHaveAccessibleName('Pause');
  await page.waitForTimeout(1_000);
  await page.getByTestId('player-play').click();
  await expect(page.getByTestId('player-play')).toHaveAccessibleName('Play');
  const played = Number(await seek.getAttribute('data-at')) - start;
  expect(played).toBeGreaterThan(Math.min(end - start, 3_000) - 1);
  // A click on the picture puts the keys there: Space plays and pauses.
  await page.getByTestId('player-stage').click();
  await page.keyboard.press('Home');
  await page.keyboard.press('Space');
  await expect(page.getByTestId('player-play')).toHaveAccessibleName('Pause');
  await page.keyboard.press('Space');
  await expect(page.getByTestId('player-play')).toHaveAccessibleName('Play');

  await expectNoSeriousViolations(page, '/recordings/<id>');

  // Opened without a moment (as from the list), the player shows the first frame, not black
  // (the picture at the moment asked for shows first: the probe sees a picture when there is one —
  // at the end, as Home's moment may come before the desktop's first picture was recorded).
  await page.keyboard.press('End');
  await expect
    .poll(() => playerPictureLit(page), { timeout: 15_000 })
    .toBeGreaterThan(MIN_PICTURE_LIT);
  await page.goto(new URL(new URL(page.url()).pathname, stack.url).toString());
  await expect(page.getByTestId('player-seek')).toBeVisible({ timeout: 30_000 });
  await expect
    .poll(() => playerPictureLit(page), { timeout: 15_000 })
    .toBeGreaterThan(MIN_PICTURE_LIT);

  for (const viewport of [
    { width: 390, height: 844 },
    { width: 1280, height: 800 },
    { width: 3840, height: 2160 },
  ]) {
    await page.setViewportSize(viewport);
    const shot = test.info().outputPath(`recordings-${viewport.width}.png`);
    await page.screenshot({ path: shot, fullPage: true });
    await test.info().attach(`recordings-${viewport.width}.png`, {
      path: shot,
      contentType: 'image/png',
    });
  }
});

test('the player composites the AI overlay and pointer from the event track', async ({
  page,
  stack,
}) => {
  test.setTimeout(120_000);
  const seek = await recordAndShowClick(page, stack);

  // At the click: the AI's pointer on the clicked pixel, the overlay it drew, the markers.
  const pointer = page.getByTestId('player-pointer');
  await expect(pointer).toBeVisible();
  await expect(pointer).toHaveAttribute('data-x', '150');
  await expect(pointer).toHaveAttribute('data-y', '130');
  const overlays = page.getByTestId('player-overlays');
  await expect(overlays).toHaveAttribute('data-overlay-count', '1');
  await expect(
    page.locator('[data-testid="seek-marker"][data-kind="action"]').first(),
  ).toBeAttached();

  // The events beside the player: the overlay's removal shows the picture without it.
  const removed = page.getByTestId('recording-event').filter({ hasText: 'Overlay removed' });
  await removed.first().click();
  await expect(overlays).toHaveAttribute('data-overlay-count', '0');
  await expect(seek).toHaveAttribute(
    'data-at',
    (await removed.first().getAttribute('data-t')) ?? '',
  );
  await expect(pointer).toBeHidden();

  // The AI's timeline: a card for the click, with what it meant and how it was decided.
  const card = page.getByTestId('ai-card').filter({ hasText: 'click_at' });
  await expect(card).toContainText('Point at the box');
  await expect(card).toHaveAttribute('data-decision', 'allowed');
});
