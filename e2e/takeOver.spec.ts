// "Honest take-over" end to end, in real Chromium against the real stack, effects checked from
// the X side (xev): while the person has the desktop the AI's input is not asked about and fails
// at its deadline saying so; a question open at the take-over is withdrawn; what was allowed
// before or during the take-over is offered at the hand back ("1 approved action waiting") and
// reaches X only on Run, at the pixel the AI named. "You have the desktop" shows in every window.
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { Page } from '@playwright/test';
import { expect, test } from './fixtures.js';
import {
  callTool,
  connectMcp,
  openControlViewer,
  openViewerAt,
  startXev,
  viewerRole,
} from './support/controlPlane.js';
import type { RunningStack } from './support/bridgeProcess.js';
import { countedKeyboard } from './support/countedKeyboard.js';

const buttonPresses = (log: string) => (log.match(/ButtonPress/g) ?? []).length;

let mcp: Client | undefined;
let xev: Awaited<ReturnType<typeof startXev>> | undefined;
let control: Page | undefined;

test.afterEach(async () => {
  // The bridge remembers a take-over for every window: hand back for the specs sharing the stack.
  if ((await control?.getByTestId('take-over').textContent()) === 'Hand back')
    await control?.getByTestId('take-over').click();
  if (mcp !== undefined) await callTool(mcp, 'set_mode', { mode: 'passive' });
  await mcp?.close();
  mcp = undefined;
  xev?.stop();
  xev = undefined;
  control = undefined;
});

async function start(page: Page, stack: RunningStack, mode: string) {
  await openControlViewer(page, stack, mode);
  control = page;
  xev = await startXev(stack.xEnv);
  mcp = await connectMcp(stack);
  const target = { x: xev.rect.x + 80, y: xev.rect.y + 60 };
  return { xev, mcp, target };
}

async function takeOver(page: Page): Promise<void> {
  await page.getByTestId('take-over').click();
  await expect(page.getByTestId('take-over')).toHaveText('Hand back');
  await expect(page.getByTestId('take-over-banner')).toContainText('You have the desktop');
}

async function handBack(page: Page): Promise<void> {
  await page.getByTestId('take-over').click();
  await expect(page.getByTestId('take-over')).toHaveText('Take over');
  await expect(page.getByTestId('take-over-banner')).toHaveCount(0);
}

test('while the person has the desktop an AI click is not asked about, fails at its deadline saying so, and never reaches X; every window says "You have the desktop"', async ({
  page,
  stack,
}) => {
  test.setTimeout(80_000);
  const { xev, mcp, target } = await start(page, stack, 'assist');
  const mirror = await page.context().newPage();
  await openViewerAt(mirror, stack, '/');
  await expect.poll(() => viewerRole(mirror)).toBe('mirror');
  await takeOver(page);
  await expect(mirror.getByTestId('take-over-banner')).toContainText('You have the desktop');

  const startedAt = Date.now();
  const call = callTool(mcp, 'click_at', target);
  // Assist would ask; while the person has the desktop nothing is asked, for the whole wait.
  for (let i = 0; i < 10; i++) {
    await page.waitForTimeout(1_000);
    await expect(page.getByTestId('confirm-panel')).toHaveCount(0);
  }
  const outcome = await call;
  expect(outcome.isError).toBe(true);
  expect(outcome.text).toMatch(/^cancelled: The person has taken over the desktop/);
  // At its deadline (click_at in assist: 5 s + the 30 s approval window), not before.
  expect(Date.now() - startedAt).toBeGreaterThan(30_000);
  await expect(page.getByTestId('confirm-panel')).toHaveCount(0);
  expect(buttonPresses(xev.log())).toBe(0);

  // The hand back in the mirror reaches the control window too.
  await mirror.getByTestId('take-over-banner').getByRole('button', { name: 'Hand back' }).click();
  await expect(page.getByTestId('take-over-banner')).toHaveCount(0);
  await expect(page.getByTestId('take-over')).toHaveText('Take over');
  await page.waitForTimeout(1_500);
  expect(buttonPresses(xev.log())).toBe(0);
  await mirror.close();
});

test('a request on the approval panel is withdrawn at the take-over; the AI is told why and nothing reaches X', async ({
  page,
  stack,
}) => {
  const { xev, mcp, target } = await start(page, stack, 'assist');
  const call = callTool(mcp, 'click_at', target);
  await expect(page.getByTestId('confirm-panel')).toContainText('Click with the left button');
  const askedAt = Date.now();
  await takeOver(page);
  await expect(page.getByTestId('confirm-panel')).toHaveCount(0);
  const outcome = await call;
  expect(outcome.isError).toBe(true);
  expect(outcome.text).toMatch(/^cancelled: The person has taken over the desktop/);
  expect(outcome.text).toContain('withdrawn');
  expect(Date.now() - askedAt).toBeLessThan(10_000);
  await handBack(page);
  await page.waitForTimeout(1_500);
  await expect(page.getByTestId('confirm-panel')).toHaveCount(0);
  await expect(page.getByTestId('held-actions')).toHaveCount(0);
  expect(buttonPresses(xev.log())).toBe(0);
});

test('an action allowed during the take-over is offered at the hand back: Discard refuses it, Run clicks at the pixel the AI named', async ({
  page,
  stack,
}) => {
  const { xev, mcp, target } = await start(page, stack, 'autopilot');
  // A longer budget (5 s + the pause after) leaves time to answer the offer.
  const args = { ...target, action_timing_hint: { delay_after_ms: 6_000 } };

  await takeOver(page);
  const discarded = callTool(mcp, 'click_at', args);
  await page.waitForTimeout(1_000);
  await expect(page.getByTestId('held-actions')).toHaveCount(0);
  await handBack(page);
  const offer = page.getByTestId('held-actions');
  await expect(offer).toContainText('1 approved action waiting');
  await expect(offer).toContainText('Click with the left button');
  await expect(offer).toContainText(`At ${target.x}, ${target.y} on the desktop`);
  await page.waitForTimeout(1_000);
  expect(buttonPresses(xev.log())).toBe(0);
  await offer.getByRole('button', { name: 'Discard' }).click();
  await expect(offer).toHaveCount(0);
  const refusal = await discarded;
  expect(refusal.isError).toBe(true);
  expect(refusal.text).toMatch(/^permission_denied: The person discarded this click_at/);
  await page.waitForTimeout(1_000);
  expect(buttonPresses(xev.log())).toBe(0);

  await takeOver(page);
  const ran = callTool(mcp, 'click_at', args);
  await page.waitForTimeout(1_000);
  expect(buttonPresses(xev.log())).toBe(0);
  await handBack(page);
  const run = offer.getByRole('button', { name: 'Run' });
  await expect(run).not.toHaveAttribute('aria-disabled', 'true');
  expect(buttonPresses(xev.log())).toBe(0);
  await run.click();
  await expect.poll(() => xev.log()).toContain(`root:(${target.x},${target.y})`);
  expect(buttonPresses(xev.log())).toBe(1);
  const outcome = await ran;
  expect(outcome.isError).toBe(false);
  expect(outcome.structured?.waited_for_person_ms).toBeGreaterThan(1_000);
});

test('the offer at the hand back is answered from the keyboard: the chord puts it on Discard, Tab on Run, Enter runs it (three presses)', async ({
  page,
  stack,
}) => {
  const { xev, mcp, target } = await start(page, stack, 'autopilot');
  const args = { ...target, action_timing_hint: { delay_after_ms: 6_000 } };
  await takeOver(page);
  const ran = callTool(mcp, 'click_at', args);
  await page.waitForTimeout(1_000);
  await handBack(page);
  const offer = page.getByTestId('held-actions');
  const run = offer.getByRole('button', { name: 'Run' });
  await expect(run).not.toHaveAttribute('aria-disabled', 'true');
  const keys = countedKeyboard(page);
  await keys.chord();
  await expect(offer.getByRole('button', { name: 'Discard' })).toBeFocused();
  await keys.press('Tab');
  await expect(run).toBeFocused();
  expect(buttonPresses(xev.log())).toBe(0);
  await keys.press('Enter');
  await expect.poll(() => xev.log()).toContain(`root:(${target.x},${target.y})`);
  expect(keys.presses()).toBe(3);
  const outcome = await ran;
  expect(outcome.isError, outcome.text).toBe(false);
  // Run at the hand back is the person's answer: the AI is told they confirmed it.
  expect(outcome.structured?.was_confirmed).toBe(true);
  await expect(offer).toHaveCount(0);
  // The keyboard went back where it came from (Hand back, on the page), not to <body>.
  await expect(page.getByTestId('take-over')).toBeFocused();
});
