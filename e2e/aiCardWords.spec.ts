// The AI's timeline cards word a call as the action log does, on the real stack: with recording
// on, the AI takes a screenshot (allowed by the assist mode) and asks to click (the person
// denies); the live timeline's cards then read "Allowed by the mode assist · done in … ms" and
// "Asked · denied by admin" (who denied, as the audit names them) — never the raw codes
// ("allowed · ok · 4 ms") — and the action log's
// line for the same call holds the card's very words. At a phone's, a laptop's and 4K size (with
// screenshots) a "Denied: …" toast does not cover the open timeline (ui/Toasts.tsx).
import { expect, test } from './fixtures.js';
import { callTool, connectMcp, openControlViewer } from './support/controlPlane.js';
import { recordingOn } from './support/recordingOn.js';
import { UI_SIZES, intersecting, shot, sizeTag, type Box } from './support/uiShots.js';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';

let recordingBack: (() => Promise<void>) | undefined;
let ai: Client | undefined;

test.afterAll(async () => {
  await ai?.close();
  await recordingBack?.();
});

test("a timeline card reads like the action log's line for the same call", async ({
  page,
  stack,
}) => {
  test.setTimeout(120_000);
  recordingBack = await recordingOn(stack);
  await page.setViewportSize({ width: 1280, height: 800 });
  await openControlViewer(page, stack, 'assist');
  await expect(page.getByTestId('recording-indicator')).toBeVisible({ timeout: 15_000 });
  ai = await connectMcp(stack);
  expect((await callTool(ai, 'take_screenshot', {})).isError).toBe(false);
  const asked = callTool(ai, 'click_at', { x: 20, y: 20 });
  await expect(page.getByTestId('confirm-panel')).toBeVisible();
  await page.getByRole('button', { name: 'Deny', exact: true }).click();
  expect((await asked).isError).toBe(true);

  await page.getByTestId('live-timeline-button').click();
  const timeline = page.getByTestId('live-timeline');
  const shotCard = timeline.getByTestId('ai-card').filter({ hasText: 'take_screenshot' }).last();
  const clickCard = timeline.getByTestId('ai-card').filter({ hasText: 'click_at' }).last();
  const decision = (card: typeof shotCard) => card.locator('.ai-card__decision');
  await expect(decision(shotCard)).toHaveText(
    /^Allowed by the mode assist · done in \d+(\.\d)? m?s$/,
    {
      timeout: 15_000,
    },
  );
  const deniedBy = `Asked · denied by ${stack.admin.username}`;
  await expect(decision(clickCard)).toHaveText(deniedBy);
  const cardWords = (await decision(shotCard).textContent()) ?? '';

  // At each size, with a fresh "Denied: …" toast: the panel ends above the toasts' band.
  for (const size of UI_SIZES) {
    await page.setViewportSize(size);
    await page.evaluate(() => new Promise((done) => requestAnimationFrame(() => done(null))));
    const again = callTool(ai, 'click_at', { x: 20, y: 20 });
    await page.getByRole('button', { name: 'Deny', exact: true }).click();
    expect((await again).isError).toBe(true);
    const toast = page.getByTestId('toast').last();
    await expect(toast).toBeVisible();
    await shot(page, `ai-cards-${sizeTag(size)}`);
    const boxes: Box[] = [];
    for (const [name, locator] of [
      ['toast', toast],
      ['live-timeline', timeline],
    ] as const) {
      const box = await locator.boundingBox();
      if (box !== null) boxes.push({ name, ...box });
    }
    expect(boxes).toHaveLength(2);
    expect(intersecting(boxes), `a toast over the live timeline at ${sizeTag(size)}`).toEqual([]);
  }

  // The action log's line for the screenshot: the card's words, then the client.
  await page.setViewportSize({ width: 1280, height: 800 });
  await timeline.getByRole('button', { name: 'Close', exact: true }).click();
  await page.getByTestId('action-log-button').click();
  const line = page
    .getByTestId('action-log-entry')
    .filter({ hasText: 'Take a screenshot' })
    .first()
    .locator('.action-log__facts');
  await expect(line).toContainText(cardWords);
  await expect(
    page
      .getByTestId('action-log-entry')
      .filter({ hasText: 'Click (left) at 20, 20' })
      .first()
      .locator('.action-log__facts'),
  ).toContainText(deniedBy);
  await shot(page, 'action-log-1280x800');
});
