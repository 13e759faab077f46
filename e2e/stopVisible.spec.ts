// Stop never hides (P9 item 4): at every width from a phone to 4K and in every state the bar can
// be in — approvals waiting, standing permissions and AI clients listed, the key-reading banner
// and the pointer-following line, the desktop away, a long desktop name, menus open — the point
// at Stop's centre is Stop (so a click there stops the AI), Stop lies wholly inside the window and keeps its size. And a monitor
// window shows every desktop pixel of its viewport (item 7): at 1280×800 a 1280×800 viewport's
// page pixels equal xwd -root, with the chrome floating and hidden, and the chord brings Stop back.
// Screenshots of each state at 390, 1280 and 3840 px go into the test's output folder.
/// <reference lib="dom" />
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { API } from '@overlay-companion/protocol';
import type { Page, TestInfo } from '@playwright/test';
import { captureRoot } from '../packages/gateway/src/testing/desktopCapture.js';
import { expect, test } from './fixtures.js';
import type { RunningStack } from './support/bridgeProcess.js';
import { callTool, connectMcp, openControlViewer, startXev } from './support/controlPlane.js';
import { comparePngWithRgba } from './support/pixels.js';
import { adminSession, setPermissions, signInContext } from './support/signIn.js';

const WIDTHS = [320, 390, 768, 1280, 1920, 3840] as const;
const SHOWN_AT = new Set<number>([390, 1280, 3840]);

function heightFor(width: number): number {
  return width <= 390
    ? 844
    : width <= 768
      ? 1024
      : width <= 1280
        ? 800
        : Math.round(width * 0.5625);
}

/** Where Stop is, and whether the point at its centre is Stop itself (or inside it). */
async function stopProbe(page: Page) {
  return page.evaluate(() => {
    const stop = Array.from(document.querySelectorAll('button')).find(
      (b) => b.textContent?.trim() === 'Stop',
    );
    if (!stop) return { found: false } as const;
    const r = stop.getBoundingClientRect();
    const hit = document.elementFromPoint(r.x + r.width / 2, r.y + r.height / 2);
    return {
      found: true,
      box: { x: r.x, y: r.y, width: r.width, height: r.height },
      hitIsStop: hit !== null && stop.contains(hit),
      hit:
        hit === null
          ? 'nothing'
          : `${hit.tagName}.${hit.className} "${hit.textContent?.slice(0, 40) ?? ''}"`,
      viewport: { width: innerWidth, height: innerHeight },
    } as const;
  });
}

/** At every width: Stop is on top at its centre, wholly in the window, and the same size. */
async function expectStopEverywhere(page: Page, state: string, info: TestInfo): Promise<void> {
  for (const width of WIDTHS) {
    await page.setViewportSize({ width, height: heightFor(width) });
    // Let the bar settle (ResizeObservers, a re-render of the chrome).
    await page.waitForTimeout(150);
    const probe = await stopProbe(page);
    const where = `${state} at ${width}px`;
    expect(probe.found, `${where}: no Stop button`).toBe(true);
    if (!probe.found) return;
    expect(probe.hitIsStop, `${where}: the point at Stop's centre is ${probe.hit}`).toBe(true);
    const { box } = probe;
    expect(box.x, where).toBeGreaterThanOrEqual(0);
    expect(box.y, where).toBeGreaterThanOrEqual(0);
    expect(box.x + box.width, where).toBeLessThanOrEqual(probe.viewport.width);
    expect(box.y + box.height, where).toBeLessThanOrEqual(probe.viewport.height);
    // Its size: 72 × 32, or 72 × 44 where fingers need the height.
    expect(box.width, where).toBe(72);
    expect(box.height, where).toBe(width <= 600 ? 44 : 32);
    if (SHOWN_AT.has(width)) {
      await page.screenshot({
        path: info.outputPath(`${state.replace(/\W+/g, '-')}-${width}.png`),
      });
    }
  }
}

let mcp: Client | undefined;

test.afterEach(async () => {
  await mcp?.close();
  mcp = undefined;
});

test('Stop stays whole, in view and on top in every state of the bar, from 320 px to 4K', async ({
  page,
  stack,
}, info) => {
  test.setTimeout(180_000);
  await openControlViewer(page, stack, 'assist');
  await expectStopEverywhere(page, 'idle', info);

  // An AI client listed, and an approval waiting.
  mcp = await connectMcp(stack);
  const xev = await startXev(stack.xEnv);
  try {
    const click = () => callTool(mcp!, 'click_at', { x: xev.rect.x + 40, y: xev.rect.y + 40 });
    const waiting = click();
    await expect(page.getByTestId('confirm-panel')).toBeVisible();
    await expectStopEverywhere(page, 'approval waiting', info);

    // "Allow click_at for 15 min": the "AI may act without asking" chip with its standing
    // permission (the state in which the account button used to cover Stop at 1280 px).
    await page.setViewportSize({ width: 1280, height: 800 });
    const allowFor = page.getByRole('button', { name: 'Allow click_at for', exact: true });
    await expect(allowFor).not.toHaveAttribute('aria-disabled', 'true');
    await allowFor.click();
    expect((await waiting).isError).toBe(false);
    await expect(page.getByTestId('standing-permission')).toContainText('click_at');
    await expectStopEverywhere(page, 'standing permission', info);

    // ...with the account menu open, then the desktop's panel.
    await page.setViewportSize({ width: 1280, height: 800 });
    await page.getByTestId('account-name').click();
    await expect(page.locator('#account-menu')).toBeVisible();
    await expectStopEverywhere(page, 'account menu open', info);
    await page.keyboard.press('Escape');
    await page.locator('.remote-display').click({ position: { x: 5, y: 5 } });

    // The key-reading banner and the pointer-following line on top of it all.
    await setPermissions(stack, { read_key_events: true });
    const keys = await callTool(mcp, 'subscribe_events', { events: ['key_press', 'mouse_move'] });
    expect(keys.isError, keys.text).toBe(false);
    await expect(page.getByTestId('key-reading-banner')).toBeVisible();
    await expect(page.getByTestId('pointer-following-banner')).toBeVisible();
    await expectStopEverywhere(page, 'key reading and pointer following', info);
    await callTool(mcp, 'unsubscribe_events', {
      subscription_id: keys.structured?.subscription_id,
    });
    await page.getByRole('button', { name: /^Revoke click_at/ }).click();
  } finally {
    xev.stop();
    await setPermissions(stack, { read_key_events: false });
  }
});

test('Stop stays whole, in view and on top with a long desktop name, its panel and the menu open', async ({
  page,
  stack,
}, info) => {
  test.setTimeout(120_000);
  const restore = await renameDesktop(
    stack,
    'Accounting department’s shared Windows desktop, third floor',
  );
  try {
    await openControlViewer(page, stack, 'assist');
    await expect(page.getByTestId('charge-button')).toContainText('third floor');
    await expectStopEverywhere(page, 'long desktop name', info);
    await page.setViewportSize({ width: 1280, height: 800 });
    await page.getByTestId('charge-button').click();
    await expect(page.getByTestId('charge-explanation')).toBeVisible();
    await expectStopEverywhere(page, 'desktop panel open', info);
    await page.keyboard.press('Escape');
    await page.getByRole('button', { name: 'Menu', exact: true }).click();
    await expectStopEverywhere(page, 'menu open', info);
  } finally {
    await restore();
  }
});

test('Stop stays whole, in view and on top while the desktop is away', async ({
  page,
  stack,
}, info) => {
  test.setTimeout(120_000);
  await openControlViewer(page, stack, 'assist');
  // The bridge's desktop stops answering: every tunnel is refused from now on.
  await page.routeWebSocket(/\/tunnel(\?|$)/, (ws) =>
    ws.close({ code: 4519, reason: '519 Gone (test)' }),
  );
  await page.route('**/api/tickets', (route) => route.abort('connectionrefused'));
  await page.reload();
  await expect(page.getByTestId('reconnect-notice')).toBeVisible({ timeout: 30_000 });
  await expect(
    page.getByRole('banner').getByRole('button', { name: 'Reconnect now' }),
  ).toBeVisible();
  await expectStopEverywhere(page, 'desktop away', info);
});

test('a 1280×800 monitor window at 1280×800 shows all 800 rows of its viewport; the chord brings Stop back', async ({
  browser,
  stack,
  pixelPage,
}) => {
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  try {
    await signInContext(context, stack);
    const page = await context.newPage();
    await page.goto(new URL('?vx=0&vy=0&vw=1280&vh=800', stack.url).toString());
    await expect(page.getByTestId('connection-label')).toHaveText('Connected', { timeout: 30_000 });
    const bar = page.locator('.status-bar');
    // Shown for a moment after connecting, then out of the way.
    await expect(bar).toHaveAttribute('data-chrome', 'hidden', { timeout: 15_000 });
    const stage = await page.locator('.remote-display__stage').boundingBox();
    expect(stage).toEqual({ x: 0, y: 0, width: 1280, height: 800 });
    // Nothing of the page's own is drawn over the picture, and nothing takes its clicks.
    for (const y of [0, 10, 39, 60]) {
      const inDisplay = await page.evaluate(
        (at) => document.elementFromPoint(640, at)?.closest('.remote-display') !== null,
        y,
      );
      expect(inDisplay, `the point (640, ${y}) is the display's`).toBe(true);
    }
    // The person's own mouse over the display: the pointer is then a CSS cursor (never in a
    // screenshot), not the remote pointer image drawn on the display (which xwd does not show).
    await page.mouse.move(2, 798);
    await expect
      .poll(
        async () => {
          const png = await page.screenshot();
          const root = await captureRoot(stack.xEnv);
          const diff = await comparePngWithRgba(pixelPage, png, cropRgba(root, 1280, 800));
          return diff.mismatches === 0
            ? 'equal'
            : `${diff.mismatches} differ, ${diff.size}, first ${diff.first ?? ''}`;
        },
        { timeout: 15_000 },
      )
      .toBe('equal');

    // The Stop chord shows the chrome again, with Stop on top where the person can click it.
    await page.keyboard.down('Control');
    await page.keyboard.down('Alt');
    await page.keyboard.down('Shift');
    await page.keyboard.up('Shift');
    await page.keyboard.up('Alt');
    await page.keyboard.up('Control');
    await expect(bar).toHaveAttribute('data-chrome', 'shown');
    const probe = await stopProbe(page);
    expect(probe.found && probe.hitIsStop).toBe(true);
    await expect(bar).toHaveAttribute('data-chrome', 'hidden', { timeout: 10_000 });
    // So does resting the pointer at the top edge.
    await page.mouse.move(640, 400);
    await page.mouse.move(640, 1);
    await expect(bar).toHaveAttribute('data-chrome', 'shown');
    await page.getByRole('button', { name: 'Stop', exact: true }).click();
  } finally {
    await context.close();
  }
});

/** The top-left `width` × `height` of an RGBA image. */
function cropRgba(
  image: { width: number; height: number; rgba: Buffer },
  width: number,
  height: number,
) {
  const rgba = Buffer.alloc(width * height * 4);
  for (let y = 0; y < height; y++) {
    image.rgba.copy(rgba, y * width * 4, y * image.width * 4, (y * image.width + width) * 4);
  }
  return { width, height, rgba };
}

/** Renames the admin's own desktop; returns how to give it its name back. */
async function renameDesktop(stack: RunningStack, name: string): Promise<() => Promise<void>> {
  const admin = await adminSession(stack);
  const listed = (await (await admin.request(API.desktops)).json()) as {
    desktops: Array<{ id: string; name: string; access: string }>;
  };
  const own = listed.desktops.find((d) => d.access === 'owner');
  if (own === undefined) throw new Error('the admin owns no desktop');
  const rename = async (to: string) => {
    const answer = await admin.request(`${API.desktops}/${own.id}`, {
      method: 'PATCH',
      body: { name: to },
    });
    if (!answer.ok)
      throw new Error(`renaming the desktop: ${answer.status} ${await answer.text()}`);
  };
  await rename(name);
  return () => rename(own.name);
}
