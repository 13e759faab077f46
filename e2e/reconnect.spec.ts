// The viewer's reconnect path with the real guacamole-common-js client: the test cuts the
// first tunnel the way the bridge does (close reason "<status> <explanation>") and checks the
// status bar says why and counts down, and that the viewer connects again by itself.
/// <reference lib="dom" />
import type { WebSocketRoute } from '@playwright/test';
import { expect, test } from './fixtures.js';

test('shows the reason when the tunnel drops and reconnects with backoff', async ({
  page,
  viewer,
}) => {
  const tunnels: { page: WebSocketRoute; server: WebSocketRoute }[] = [];
  await page.routeWebSocket(/\/tunnel(\?|$)/, (ws) => {
    // With no handlers of its own, a connected route forwards both directions unchanged.
    tunnels.push({ page: ws, server: ws.connectToServer() });
  });
  await viewer.open();
  await viewer.waitConnected();

  // Record every text the status shows, so a short-lived "Reconnecting in 1 s" is not missed.
  await page.evaluate(() => {
    // The status bar's live region (the page has other status regions, e.g. the key banner).
    const status = document.querySelector('.status-bar [role="status"]');
    if (!status) throw new Error('no status element');
    const seen: string[] = [];
    (window as unknown as { seenStatus: string[] }).seenStatus = seen;
    new MutationObserver(() => seen.push(status.textContent ?? '')).observe(status, {
      subtree: true,
      childList: true,
      characterData: true,
    });
  });

  const first = tunnels[0];
  if (!first) throw new Error('the viewer opened no tunnel');
  await first.page.close({ code: 4519, reason: '519 Lost the desktop (test)' });
  await first.server.close();

  await expect.poll(() => tunnels.length, { timeout: 10_000 }).toBe(2);
  await viewer.waitConnected();
  const seen = await page.evaluate(
    () => (window as unknown as { seenStatus: string[] }).seenStatus,
  );
  const reason = 'Lost the desktop (test) — Guacamole status 519 UPSTREAM_NOT_FOUND';
  // First retry: 0.5 s ± 30 %, shown rounded up.
  expect(seen).toContain(`Reconnecting in 1 s${reason}`);
  expect(seen.at(-1)).toBe('Connected');
});
