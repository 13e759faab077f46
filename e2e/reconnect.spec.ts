// The viewer's reconnect path with the real guacamole-common-js client: the test cuts the
// first tunnel the way the bridge does (close reason "<status> <explanation>") and checks the
// status bar says why and counts down, and that the viewer connects again by itself.
/// <reference lib="dom" />
import type { Page, WebSocketRoute } from '@playwright/test';
import { expect, test } from './fixtures.js';
import { regionStats } from './support/pixels.js';

type RoutedTunnel = { page: WebSocketRoute; server: WebSocketRoute };

/** Every /tunnel socket the page opens, passed through a route the test can cut. */
async function routeTunnels(page: Page): Promise<RoutedTunnel[]> {
  const tunnels: RoutedTunnel[] = [];
  await page.routeWebSocket(/\/tunnel(\?|$)/, (ws) => {
    // With no handlers of its own, a connected route forwards both directions unchanged.
    tunnels.push({ page: ws, server: ws.connectToServer() });
  });
  return tunnels;
}

test('shows the reason when the tunnel drops and reconnects with backoff', async ({
  page,
  viewer,
}) => {
  const tunnels = await routeTunnels(page);
  await viewer.open();
  await viewer.waitConnected();

  // Record every text the status shows, so a short-lived "Reconnecting in 1 s" is not missed.
  await page.evaluate(() => {
    // The status bar's live region (the page has other status regions, e.g. the key banner).
    const status = document.querySelector('.status-bar [role="status"]');
    if (!status) throw new Error('no status element');
    const seen: string[] = [];
    (window as unknown as { seenStatus: string[] }).seenStatus = seen;
    // What the live region says: the bar draws its words in a long and a short copy, hidden from
    // screen readers (aria-hidden), beside one visually hidden copy that is read (ui/BarWords).
    const spoken = (): string => {
      const copy = status.cloneNode(true) as Element;
      copy.querySelectorAll('[aria-hidden="true"]').forEach((hidden) => hidden.remove());
      return copy.textContent ?? '';
    };
    new MutationObserver(() => seen.push(spoken())).observe(status, {
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
  // The bridge closed the tunnel with its reason, so it is up: the desktop is what is away.
  const reason =
    'The bridge is up, but the remote desktop behind it is not answering: Lost the desktop (test)';
  // First retry: 0.5 s ± 30 %, shown rounded up.
  expect(seen).toContain(`Reconnecting in 1 s${reason}`);
  expect(seen.at(-1)).toBe('Connected');
});

test('when the bridge cannot be reached the last picture stays, dimmed, under a plain message with the next try; it recovers by itself', async ({
  page,
  viewer,
  pixelPage,
}) => {
  const tunnels = await routeTunnels(page);
  await viewer.open();
  await viewer.waitConnected();
  // Connected comes with the handshake; the picture (and its size) with the first frame.
  await expect.poll(async () => (await viewer.displayBox()).width).toBeGreaterThan(0);
  const box = await viewer.displayBox();

  // The bridge goes away: its socket drops without a word and its HTTP API stops answering.
  await page.route('**/api/tickets', (route) => route.abort('connectionrefused'));
  const first = tunnels[0];
  if (!first) throw new Error('the viewer opened no tunnel');
  await first.page.close({ code: 1011 });
  await first.server.close();

  const notice = page.getByTestId('reconnect-notice');
  await expect(notice).toContainText('The bridge cannot be reached');
  await expect(notice).toContainText(/Reconnecting in \d+ s|Reconnecting…/);
  await expect(notice).not.toContainText(/UPSTREAM|Guacamole status/);
  await expect(page.locator('.remote-display__stage--stale .remote-display__canvas')).toBeVisible();
  // The last frame is still there (dimmed), not a blank area: the xterm's white shows through.
  const png = await page.screenshot({ clip: box });
  const [whole] = await regionStats(pixelPage, png, [
    { x: 0, y: 0, width: box.width, height: box.height },
  ]);
  expect(whole?.lumaStdDev ?? 0).toBeGreaterThan(10);

  await page.unroute('**/api/tickets');
  await viewer.waitConnected(30_000);
  await expect(notice).toHaveCount(0);
});
