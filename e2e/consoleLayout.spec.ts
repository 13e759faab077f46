// The console's pages as a demanding person measures them, at a phone's 390×844, a laptop's
// 1280×800 and 4K (3840×2160 at scale 1), on the real stack: every page's title starts where the
// header's name starts (from page to page, nothing jumps sideways); a desktop's name in the
// Desktops table is never broken inside a word ("Deskto|p" was); the audit table's tool names
// and outcome codes stay whole from a laptop's width up ("clear_|overlays" was broken); the
// token form's desktops choice reads like the fields beside it (no framed box with its label on
// the frame); a form's button is level with the inputs of its row, on a phone too; the fleet's
// tiles grow with the screen (at least a sixth of a 4K window across).
// Screenshots attached (and written to OC_UI_SHOTS).
/// <reference lib="dom" />
import { PAGES } from '@overlay-companion/protocol';
import type { Locator, Page } from '@playwright/test';
import { expect, test } from './fixtures.js';
import { callTool, connectMcp } from './support/controlPlane.js';
import { signInContext } from './support/signIn.js';
import { UI_SIZES, shot, sizeTag } from './support/uiShots.js';

/** How many lines a single-line-looking element's text takes as drawn. */
function lineCount(element: Locator): Promise<number> {
  return element.evaluate((el) => {
    const range = document.createRange();
    range.selectNodeContents(el);
    const tops = new Set(Array.from(range.getClientRects(), (r) => Math.round(r.top)));
    return tops.size;
  });
}

async function titleLeft(
  page: Page,
  url: string,
  path: string,
): Promise<{ title: number; brand: number }> {
  await page.goto(new URL(path, url).toString());
  const title = page.getByRole('heading', { level: 1 });
  await expect(title).toBeVisible();
  const brand = page.getByRole('banner').getByText('Overlay Companion', { exact: true });
  const [t, b] = await Promise.all([title.boundingBox(), brand.boundingBox()]);
  return { title: Math.round(t?.x ?? -1), brand: Math.round(b?.x ?? -1) };
}

test('console pages: titles aligned with the header, names whole, the audit readable, at each size', async ({
  page,
  stack: stack,
}) => {
  test.setTimeout(120_000);
  // An audit entry with a long tool name (the call itself fails: no viewer is open; it is
  // audited all the same).
  const mcp = await connectMcp(stack);
  try {
    await callTool(mcp, 'clear_overlays', {});
  } finally {
    await mcp.close();
  }
  await signInContext(page.context(), stack);
  for (const size of UI_SIZES) {
    const tag = sizeTag(size);
    await page.setViewportSize(size);

    const lefts = new Map<string, number>();
    let brandLeft = -1;
    for (const path of [
      PAGES.config,
      PAGES.desktops,
      PAGES.fleet,
      PAGES.layout,
      PAGES.settings,
      PAGES.audit,
      PAGES.recordings,
      PAGES.people,
    ]) {
      const { title, brand } = await titleLeft(page, stack.url, path);
      lefts.set(path, title);
      brandLeft = brand;
    }
    const distinct = [...new Set(lefts.values())];
    expect(
      distinct,
      `the pages' titles start at one x at ${tag}: ${JSON.stringify([...lefts])}`,
    ).toHaveLength(1);
    // The title's left edge lines up with the header's (where the product's name starts).
    expect(Math.abs(distinct[0]! - brandLeft), `title and header at ${tag}`).toBe(0);

    await page.goto(new URL(PAGES.desktops, stack.url).toString());
    const names = page.locator('th.table__name');
    await expect(names.first()).toBeVisible();
    await shot(page, `console-desktops-${tag}`);
    for (const name of await names.all()) {
      const text = (await name.textContent()) ?? '';
      // A one-word name is one line.
      if (!/\s/.test(text.trim()))
        expect(await lineCount(name), `"${text}" in the Desktops table at ${tag}`).toBe(1);
    }

    await page.goto(new URL(PAGES.config, stack.url).toString());
    const choice = page.getByRole('group', { name: 'Desktops' });
    await expect(choice).toBeVisible();
    const frame = await choice.evaluate((el) => getComputedStyle(el).borderTopStyle);
    expect(frame, `the token's desktops choice at ${tag}`).toBe('none');
    await shot(page, `console-config-${tag}`);

    // A form's button beside the inputs of its row is level with them (not with their labels).
    await page.goto(new URL(PAGES.layout, stack.url).toString());
    const add = await page.getByRole('button', { name: 'Add screen' }).boundingBox();
    const height = await page.locator('#screen-height').boundingBox();
    if (add!.x > height!.x + height!.width)
      expect(Math.abs(add!.y - height!.y), `Add screen beside its input at ${tag}`).toBeLessThan(4);

    // The fleet's pictures grow with the screen: on 4K a tile is not a stamp of 400 px.
    await page.goto(new URL(PAGES.fleet, stack.url).toString());
    const tile = page.getByTestId('fleet-tile').first();
    await expect(tile).toBeVisible({ timeout: 15_000 });
    const tileBox = await tile.boundingBox();
    expect(tileBox!.width, `a fleet tile's width at ${tag}`).toBeGreaterThanOrEqual(
      Math.min(size.width - 40, size.width * 0.17),
    );
    await shot(page, `console-fleet-${tag}`);

    if (size.width >= 1280) {
      await page.goto(new URL(PAGES.audit, stack.url).toString());
      const tools = page.locator('.table--audit td:nth-child(2) code');
      await expect(tools.first()).toBeVisible();
      await shot(page, `console-audit-${tag}`);
      const outcomes = page.locator('.table--audit td:nth-child(7)');
      for (const code of [...(await tools.all()), ...(await outcomes.all())].slice(0, 20))
        expect(
          await lineCount(code),
          `"${await code.textContent()}" (a tool name or outcome) in the audit at ${tag}`,
        ).toBe(1);
    }
  }
});
