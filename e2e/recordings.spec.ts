// Recording and replay end to end (P12, the web side): the admin makes recording the bridge's
// default, the viewer shows the recording indicator, an MCP client draws an overlay and clicks in
// autopilot, and then the audit page's "Show me" on the click lands in the player at that moment —
// the AI's pointer at the clicked pixel, the overlay composited, markers on the seek bar — and the
// player's events, keys and speed work; axe checks the page; the page is photographed at a
// phone's, a laptop's and a 4K width (attached). Everything is real: bridge, gateway, Xvnc,
// Chromium, the recording the bridge wrote.
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { expect, test } from './fixtures.js';
import { callTool, connectMcp, openControlViewer } from './support/controlPlane.js';
import { adminSession } from './support/signIn.js';
import { expectNoSeriousViolations } from './support/a11y.js';

let mcp: Client | undefined;

test.afterEach(async () => {
  await mcp?.close();
  mcp = undefined;
});

async function ok(client: Client, name: string, args: Record<string, unknown>) {
  const outcome = await callTool(client, name, args);
  expect(outcome.isError, `${name}: ${outcome.text}`).toBe(false);
  return outcome;
}

// fixme: waits for the bridge side of P12 (engineer E, apps/bridge/src/recordings) to write the
// event track — `ai.action` with its point, `overlay.drawn` / `overlay.removed` — into each
// recording (on 26 Nov at 19:36 UTC the track held only `recording.stopped`, so the player has no
// pointer, overlay or card to show). Everything before the pointer check passes today: the
// indicator, "Show me" on the audit row, the player opening within 100 ms of the click.
test.fixme('an AI session is recorded, and "Show me" plays the moment of a click with its overlay', async ({
  page,
  stack,
}) => {
  test.setTimeout(120_000);
  const admin = await adminSession(stack);
  const on = await admin.request('/api/settings/recording', {
    method: 'PUT',
    body: { default_mode: 'on' },
  });
  expect(on.ok, `PUT /api/settings/recording: ${on.status}`).toBe(true);

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
  await page.waitForTimeout(1_000);

  // The audit row of the click links to the recording at its moment.
  await page.goto(new URL('/audit', stack.url).toString());
  const row = page.getByRole('row').filter({ hasText: 'click_at' }).first();
  const showMe = row.getByRole('link', { name: /Show me/ });
  await expect(showMe).toBeVisible({ timeout: 15_000 });
  const href = (await showMe.getAttribute('href')) ?? '';
  const at = Number(new URL(href, stack.url).searchParams.get('t'));
  expect(href).toMatch(/^\/recordings\/[^/?]+\?t=\d+$/);
  await showMe.click();
  await expect(page).toHaveURL(/\/recordings\/[^/?]+\?t=\d+$/);
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('Recordings');

  // The player opens at that moment (within 100 ms), the AI's pointer on the clicked pixel.
  const seek = page.getByTestId('player-seek');
  await expect(seek).toBeVisible({ timeout: 30_000 });
  await expect
    .poll(async () => Math.abs(Number(await seek.getAttribute('data-at')) - at), {
      timeout: 15_000,
    })
    .toBeLessThanOrEqual(100);
  const pointer = page.getByTestId('player-pointer');
  await expect(pointer).toBeVisible();
  await expect(pointer).toHaveAttribute('data-x', '150');
  await expect(pointer).toHaveAttribute('data-y', '130');
  await expect(page.getByTestId('player-overlays')).toHaveAttribute('data-overlay-count', '1');
  await expect(page.getByTestId('seek-marker').first()).toBeAttached();

  // The events beside the player: the overlay's removal shows the picture without it.
  const removed = page.getByTestId('recording-event').filter({ hasText: 'Overlay removed' });
  await removed.first().click();
  await expect(page.getByTestId('player-overlays')).toHaveAttribute('data-overlay-count', '0');
  const removedAt = Number(await removed.first().getAttribute('data-t'));
  await expect(seek).toHaveAttribute('data-at', String(removedAt));

  // Keys on the player: Home goes to the start, ] doubles the speed, ← never goes before the start.
  await seek.focus();
  await page.keyboard.press('Home');
  const start = Number(await seek.getAttribute('min'));
  await expect(seek).toHaveAttribute('data-at', String(start));
  await page.keyboard.press(']');
  await expect(page.getByTestId('player-speed')).toHaveValue('2');
  await page.keyboard.press('ArrowLeft');
  await expect(seek).toHaveAttribute('data-at', String(start));
  await page.keyboard.press('ArrowRight');
  await expect(seek).toHaveAttribute('data-at', String(start + 5_000));
  await page.keyboard.press('Space');
  await expect(page.getByTestId('player-play')).toHaveAccessibleName('Pause');
  await page.keyboard.press('Space');
  await expect(page.getByTestId('player-play')).toHaveAccessibleName('Play');

  // The AI's timeline: a card for the click, with what it meant and how it was decided.
  const card = page.getByTestId('ai-card').filter({ hasText: 'click_at' });
  await expect(card).toContainText('Point at the box');

  await expectNoSeriousViolations(page, '/recordings/<id>');

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
