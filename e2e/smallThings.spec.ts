// Smaller things people met (issue 17, item 11), each checked where it happens: /config asks for
// a token first and shows the client configurations below it as tabs the keyboard moves
// through (WAI-ARIA tabs); /audit fits a 1280 px window without sideways scrolling with
// realistic entries; an overlay's label is cut by the room it has, not at a fixed length; every
// viewer window says while an AI follows the person's pointer; and on a phone the approval
// sheet folds away from the crosshair it asks about. Screenshots go to the test's output folder.
/// <reference lib="dom" />
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { PAGES } from '@overlay-companion/protocol';
import type { Locator, Page, TestInfo } from '@playwright/test';
import { clientSetups } from '../apps/web/src/pages/console/config/clientConfig.js';
import { expect, test } from './fixtures.js';
import { ConsolePage } from './pages/ConsolePage.js';
import { expectNoSeriousViolations } from './support/a11y.js';
import { callTool, connectMcp, openControlViewer, viewerRole } from './support/controlPlane.js';
import { paintedLabel, pointAt } from './support/overlays.js';
import { setPermissions, signInContext } from './support/signIn.js';

const SHOT_WIDTHS = [390, 1280, 3840] as const;

function heightFor(width: number): number {
  return width <= 390 ? 844 : width <= 1280 ? 800 : 2160;
}

/** Screenshots of `page` at a phone, a laptop and a 4K width, for a person to look at. */
async function shoot(page: Page, name: string, info: TestInfo): Promise<void> {
  for (const width of SHOT_WIDTHS) {
    await page.setViewportSize({ width, height: heightFor(width) });
    await page.waitForTimeout(200);
    await page.screenshot({ path: info.outputPath(`${name}-${width}.png`), fullPage: true });
  }
}

/** Whether the page scrolls sideways (its scrolling element is wider than the window). */
function pageScrollsSideways(page: Page): Promise<boolean> {
  return page.evaluate(() => {
    const root = document.scrollingElement ?? document.documentElement;
    return root.scrollWidth > root.clientWidth;
  });
}

/** Whether `element`'s content is wider than its box (it scrolls or is cut sideways). */
function overflowsSideways(element: Locator): Promise<boolean> {
  return element.evaluate((el) => el.scrollWidth > el.clientWidth);
}

let mcp: Client | undefined;

test.afterEach(async () => {
  await mcp?.close();
  mcp = undefined;
});

test('/config: Create a token first, then every client’s configuration as a tab the arrow keys move through', async ({
  page,
  stack,
}, info) => {
  await signInContext(page.context(), stack);
  const consolePage = new ConsolePage(page, stack.url);
  await consolePage.open(PAGES.config);

  // The form comes first, the configurations below it.
  const form = page.getByRole('form', { name: 'Create a token' });
  const tabList = page.getByRole('tablist', { name: 'AI clients' });
  await expect(form).toBeVisible();
  await expect(tabList).toBeVisible();
  const formBox = await form.boundingBox();
  const tabsBox = await tabList.boundingBox();
  expect(formBox !== null && tabsBox !== null && formBox.y + formBox.height <= tabsBox.y).toBe(
    true,
  );
  const headings = await page.getByRole('heading', { level: 3 }).allTextContents();
  expect(headings.indexOf('Create a token')).toBe(0);
  expect(headings.indexOf('Paste it into your AI client')).toBe(1);

  // One tab per client the page offers, in its order; the first chosen, one panel shown.
  const clients = clientSetups('http://x/mcp').map((setup) => setup.client);
  const tabs = tabList.getByRole('tab');
  await expect(tabs).toHaveText(clients);
  await expect(tabs.first()).toHaveAttribute('aria-selected', 'true');
  await expect(page.getByRole('tabpanel')).toHaveCount(1);
  await expect(page.getByRole('tabpanel')).toContainText('claude mcp add');

  // The keyboard: one Tab stop for the row, arrows move and choose, wrapping; Home/End.
  await tabs.first().focus();
  await page.keyboard.press('ArrowRight');
  await expect(tabs.nth(1)).toBeFocused();
  await expect(tabs.nth(1)).toHaveAttribute('aria-selected', 'true');
  await expect(tabs.first()).toHaveAttribute('aria-selected', 'false');
  await expect(page.getByRole('tabpanel', { name: clients[1] })).toContainText('"command"');
  await page.keyboard.press('ArrowLeft');
  await page.keyboard.press('ArrowLeft');
  await expect(tabs.last()).toBeFocused();
  await expect(page.getByRole('tabpanel', { name: clients.at(-1) })).toBeVisible();
  await page.keyboard.press('Home');
  await expect(tabs.first()).toBeFocused();
  await page.keyboard.press('End');
  await expect(tabs.last()).toHaveAttribute('aria-selected', 'true');
  await page.keyboard.press('Home');
  await page.keyboard.press('ArrowRight');
  await page.keyboard.press('ArrowRight');
  const cursor = tabs.nth(2);
  await expect(cursor).toHaveText('Cursor');
  await expect(cursor).toHaveAttribute('aria-selected', 'true');
  // Tab leaves the row for the chosen panel's text instead of visiting the other tabs.
  await page.keyboard.press('Tab');
  await expect(page.getByRole('tabpanel', { name: 'Cursor' }).locator('pre')).toBeFocused();
  await expectNoSeriousViolations(page, '/config with the client tabs');

  // A token made: the configurations, filled in, stay below the form with the same tab chosen.
  await consolePage.createToken('tabs check');
  const filled = page.locator('.new-token').getByRole('tab', { name: 'Cursor' });
  await expect(filled).toHaveAttribute('aria-selected', 'true');
  await expect(page.getByRole('tabpanel', { name: 'Cursor' })).toContainText('Bearer oc_');
  const newTokenBox = await page.locator('.new-token').boundingBox();
  const formAfter = await form.boundingBox();
  expect((formAfter?.y ?? Infinity) < (newTokenBox?.y ?? -Infinity)).toBe(true);
  await expectNoSeriousViolations(page, '/config with a new token and the client tabs');

  await shoot(page, 'config-new-token', info);
  for (const width of SHOT_WIDTHS) {
    await page.setViewportSize({ width, height: heightFor(width) });
    expect(await pageScrollsSideways(page), `/config at ${width}px`).toBe(false);
  }
  await page.getByRole('button', { name: 'I have copied it — hide the token' }).click();
  await consolePage.revokeToken('tabs check');
});

test('/audit fits a 1280×800 window with realistic entries: no sideways scrolling, the text wraps', async ({
  page,
  stack,
}, info) => {
  test.setTimeout(120_000);
  // Realistic entries: long labels and arguments, errors with their explanation, typed text.
  mcp = await connectMcp(stack);
  const label = 'Save button of the invoice dialog — bottom right, under the Total field';
  await callTool(mcp, 'draw_overlay', {
    x: 120,
    y: 80,
    width: 300,
    height: 60,
    color: 'orange',
    label,
  });
  await callTool(mcp, 'get_display_info', {});
  // No viewer window is open: these fail with the bridge's explanation.
  await callTool(mcp, 'click_at', {
    x: 1210,
    y: 740,
    intent: 'Click Save so the invoice for ACME-2025-000123-FINAL-REVISED is stored.',
  });
  await callTool(mcp, 'type_text', {
    text: 'https://accounting.example.com/invoices/ACME-2025-000123-FINAL-REVISED?tab=lines&sort=amount',
  });
  await callTool(mcp, 'press_key', { keys: 'ctrl+shift+s' });
  // The longest tool names and outcome codes there are, as a day of use leaves them.
  await callTool(mcp, 'set_screenshot_frequency', { mode: 'manual' });
  await callTool(mcp, 'subscribe_events', { events: ['key_press'] });
  await callTool(mcp, 'unsubscribe_events', { subscription_id: 'sub_that_never_was_0000000000' });

  await signInContext(page.context(), stack);
  const consolePage = new ConsolePage(page, stack.url);
  await page.setViewportSize({ width: 1280, height: 800 });
  await consolePage.open(PAGES.audit);
  await expect(consolePage.auditToolRows('type_text').first()).toBeVisible();
  const region = page.getByRole('region', { name: 'Audit entries' });
  expect(await pageScrollsSideways(page), 'the /audit page scrolls sideways at 1280 px').toBe(
    false,
  );
  expect(await overflowsSideways(region), 'the audit table is wider than its region').toBe(false);
  // Every column stays readable: none squeezed below a few characters.
  const columns = await region.evaluate((el) =>
    Array.from(el.querySelectorAll('thead th')).map(
      (th) => `${th.textContent ?? ''} ${Math.round(th.getBoundingClientRect().width)}`,
    ),
  );
  const narrowest = Math.min(...columns.map((column) => Number(column.split(' ').at(-1))));
  expect(narrowest, columns.join(', ')).toBeGreaterThanOrEqual(48);
  await expectNoSeriousViolations(page, '/audit at 1280 px');
  for (const width of [1920, 3840]) {
    await page.setViewportSize({ width, height: heightFor(width) });
    expect(await pageScrollsSideways(page), `/audit at ${width}px`).toBe(false);
    expect(await overflowsSideways(region), `the audit table at ${width}px`).toBe(false);
  }
  await shoot(page, 'audit', info);
});

test('an overlay label is cut by the room it has: whole on a 4K window, short on a phone', async ({
  page,
  stack,
}, info) => {
  await openControlViewer(page, stack, 'assist');
  mcp = await connectMcp(stack);
  const label = 'Save button of the invoice dialog (bottom right, under Total)';
  const drawn = await callTool(mcp, 'draw_overlay', {
    x: 200,
    y: 300,
    width: 240,
    height: 60,
    color: 'orange',
    label,
  });
  expect(drawn.isError, drawn.text).toBe(false);
  const id = String(drawn.structured?.overlay_id);
  const cut = async () => (await paintedLabel(page, id))?.cut;
  await page.setViewportSize({ width: 3840, height: 2160 });
  await expect.poll(cut).toBe(false);
  await page.screenshot({ path: info.outputPath('label-3840.png') });
  await page.setViewportSize({ width: 1280, height: 800 });
  await expect.poll(cut).toBe(false);
  await page.setViewportSize({ width: 390, height: 844 });
  await expect.poll(cut).toBe(true);
  await page.screenshot({ path: info.outputPath('label-390.png') });
  // Cut is only how it is drawn: pointed at, the tag shows the whole text.
  await pointAt(page, id);
  await expect(page.locator(`[data-overlay-label="${id}"]`)).toHaveText(label);
  await callTool(mcp, 'clear_overlays', {});
});

test('every viewer window says while an AI follows the pointer, and stops saying it when it stops', async ({
  page,
  stack,
}, info) => {
  test.setTimeout(120_000);
  await openControlViewer(page, stack, 'assist');
  const second = await page.context().newPage();
  try {
    await second.goto(stack.url);
    await expect(second.getByTestId('desktop-size')).toBeVisible({ timeout: 30_000 });
    await expect.poll(() => viewerRole(second), { timeout: 15_000 }).toBe('mirror');
    // The other window is a phone's.
    await second.setViewportSize({ width: 390, height: 844 });
    const windows = [page, second];
    for (const p of windows) await expect(p.getByTestId('pointer-following-banner')).toHaveCount(0);

    mcp = await connectMcp(stack);
    const sub = await callTool(mcp, 'subscribe_events', { events: ['mouse_move'] });
    expect(sub.isError, sub.text).toBe(false);
    for (const p of windows) {
      await expect(p.getByTestId('pointer-following-banner')).toContainText(
        'An AI follows your pointer and clicks.',
      );
      await expect(p.getByTestId('key-reading-banner')).toHaveCount(0);
    }
    await expectNoSeriousViolations(page, 'the viewer with the pointer-following line');
    await shoot(page, 'pointer-following', info);

    // The person turns the permission off: the AI no longer gets the events, the line goes.
    await setPermissions(stack, { read_pointer_events: false });
    for (const p of windows) await expect(p.getByTestId('pointer-following-banner')).toHaveCount(0);
    await setPermissions(stack, { read_pointer_events: true });
    for (const p of windows) await expect(p.getByTestId('pointer-following-banner')).toBeVisible();

    // Nothing collects pointer events any more: the line goes from every window.
    await callTool(mcp, 'unsubscribe_events', { subscription_id: sub.structured?.subscription_id });
    for (const p of windows) await expect(p.getByTestId('pointer-following-banner')).toHaveCount(0);
  } finally {
    await setPermissions(stack, { read_pointer_events: true });
    await second.close();
  }
});

test('on a phone the approval sheet folds away so the crosshair and the magnifier show', async ({
  page,
  stack,
}, info) => {
  test.setTimeout(120_000);
  await openControlViewer(page, stack, 'assist');
  await page.setViewportSize({ width: 390, height: 844 });
  mcp = await connectMcp(stack);
  // A point low on the desktop: under the open sheet on a phone.
  const size = await page.getByTestId('desktop-size').textContent();
  const [, width = '1280', height = '800'] = /(\d+)\D+(\d+)/.exec(size ?? '') ?? [];
  const pending = callTool(mcp, 'click_at', {
    x: Math.round(Number(width) / 2),
    y: Number(height) - 60,
  });
  const panel = page.getByTestId('confirm-panel');
  await expect(panel).toBeVisible();
  const collapse = panel.getByRole('button', { name: 'Show less' });
  await expect(collapse).toHaveAttribute('aria-expanded', 'true');
  const tall = (await panel.boundingBox())?.height ?? 0;
  await page.screenshot({ path: info.outputPath('sheet-open-390.png') });

  await collapse.click();
  const more = panel.getByRole('button', { name: 'Show more' });
  await expect(more).toHaveAttribute('aria-expanded', 'false');
  const folded = await panel.boundingBox();
  expect(folded?.height ?? Infinity).toBeLessThan(tall * 0.7);
  // The crosshair's centre is not under the sheet, and the magnifier and the answers show.
  const crosshair = await page.evaluate(() => {
    const mark = document.querySelector('[data-testid="confirm-crosshair"] .confirm-preview__ring');
    if (mark === null) return null;
    const r = mark.getBoundingClientRect();
    const x = r.x + r.width / 2;
    const y = r.y + r.height / 2;
    return { y, covered: document.elementFromPoint(x, y)?.closest('.confirm-panel') !== null };
  });
  expect(crosshair).not.toBeNull();
  expect(crosshair?.covered, 'the crosshair is under the folded sheet').toBe(false);
  expect(crosshair?.y ?? Infinity).toBeLessThan(folded?.y ?? 0);
  await expect(page.getByTestId('confirm-magnifier')).toBeInViewport();
  await expect(panel.getByRole('button', { name: 'Approve', exact: true })).toBeInViewport();
  await expect(panel.getByRole('button', { name: 'Deny', exact: true })).toBeInViewport();
  await page.screenshot({ path: info.outputPath('sheet-folded-390.png') });
  await expectNoSeriousViolations(page, 'the folded approval sheet');

  // Folding holds for that request only; Show more brings the facts back.
  await more.click();
  await expect(panel.getByRole('button', { name: 'Show less' })).toBeVisible();
  await expect(page.locator('#confirm-facts')).toBeVisible();
  await panel.getByRole('button', { name: 'Deny', exact: true }).click();
  expect((await pending).text).toMatch(/^permission_denied: /);
});
