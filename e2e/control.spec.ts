// The control plane end to end: a real MCP client (the SDK's) calls the bridge's /mcp, the
// bridge relays to the real viewer in Chromium, the viewer acts on a real Xvnc desktop. Checks
// what the person sees (overlay and confirmation elements, where they are) and what really
// happened on the desktop (pointer position and a ButtonPress seen by an `xev` window). Every
// page is signed in as the stack's admin; the MCP client uses the stack's OC_MCP_TOKEN.
/// <reference lib="dom" />
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { Page } from '@playwright/test';
import { expect, test } from './fixtures.js';
import { startStack, type RunningStack } from './support/bridgeProcess.js';
import { adminSession, setPermissions, signInContext } from './support/signIn.js';
import {
  callTool,
  centre,
  connectMcp,
  openControlViewer,
  pageOf,
  recordViewerLatency,
  startXev,
  viewerRole,
} from './support/controlPlane.js';
import { pointerLocation, screenSize } from './support/xdesktop.js';
import { paintedCount, paintedLabel, paintedOverlay } from './support/overlays.js';

let mcp: Client;

/** Resolves once the display's box stays the same across two reads 250 ms apart. */
async function displaySettled(page: Page): Promise<void> {
  const box = () => page.locator('.remote-display__canvas').boundingBox();
  let last = JSON.stringify(await box());
  await expect
    .poll(
      async () => {
        await page.waitForTimeout(250);
        const now = JSON.stringify(await box());
        const same = now === last;
        last = now;
        return same;
      },
      { timeout: 10_000 },
    )
    .toBe(true);
}

test.beforeEach(async ({ page, stack }) => {
  await page.addInitScript(recordViewerLatency);
  await openControlViewer(page, stack, 'assist');
  mcp = await connectMcp(stack);
});

test.afterEach(async () => {
  await mcp.close();
});

test('draw_overlay shows the overlay at its desktop position; remove_overlay takes it away', async ({
  page,
  stack,
}) => {
  const desktop = await screenSize(stack.xEnv);
  const info = await callTool(mcp, 'get_display_info', {});
  expect(info.structured).toMatchObject({
    desktop,
    monitors: [{ index: 0, x: 0, y: 0, ...desktop }],
  });

  const drawn = await callTool(mcp, 'draw_overlay', {
    x: 100,
    y: 120,
    width: 200,
    height: 80,
    color: 'red',
    label: 'Here',
    opacity: 0.4,
  });
  expect(drawn.isError, drawn.text).toBe(false);
  const id = String(drawn.structured?.overlay_id);
  expect(drawn.structured).toMatchObject({
    bounds: { x: 100, y: 120, width: 200, height: 80 },
    monitor_index: 0,
  });

  // Painted on the overlay layer's canvas; the label is its own tag beside the box (placed
  // outside it when there is room), painted there too.
  await expect.poll(() => paintedOverlay(page, id)).not.toBeNull();
  await expect.poll(async () => (await paintedLabel(page, id))?.text).toBe('Here');
  const box = await paintedOverlay(page, id);
  const topLeft = await pageOf(page, desktop.width, 100, 120);
  expect(box?.x).toBeCloseTo(topLeft.x - 0.5 * topLeft.scale, 0);
  expect(box?.y).toBeCloseTo(topLeft.y - 0.5 * topLeft.scale, 0);
  expect(box?.width).toBeCloseTo(200 * topLeft.scale, 0);
  expect(box?.height).toBeCloseTo(80 * topLeft.scale, 0);
  // Click-through: the overlay layer never takes the pointer.
  expect(
    await page.getByTestId('overlay-layer').evaluate((el) => getComputedStyle(el).pointerEvents),
  ).toBe('none');

  // Clamped to the desktop.
  const clamped = await callTool(mcp, 'draw_overlay', {
    x: desktop.width - 10,
    y: 0,
    width: 100,
    height: 10,
    color: '#00ff00',
  });
  expect(clamped.structured).toMatchObject({
    bounds: { x: desktop.width - 10, y: 0, width: 10, height: 10 },
  });

  // Round trips: the viewer answers draw_overlay without waiting for a render.
  const wall: number[] = [];
  for (let i = 0; i < 20; i++) {
    const started = performance.now();
    await callTool(mcp, 'draw_overlay', { x: i, y: i, width: 5, height: 5, color: 'gold' });
    wall.push(performance.now() - started);
  }
  wall.sort((a, b) => a - b);
  test.info().annotations.push({
    type: 'MCP draw_overlay call, client to client (ms)',
    description: `median ${(wall[10] ?? 0).toFixed(2)}, max ${(wall.at(-1) ?? 0).toFixed(2)}`,
  });
  const samples = await page.evaluate(
    () => (window as unknown as { __ocLatency: number[] }).__ocLatency,
  );
  const sorted = [...samples].sort((a, b) => a - b);
  const median = sorted[Math.floor(sorted.length / 2)] ?? Infinity;
  test.info().annotations.push({
    type: 'viewer draw_overlay latency (ms)',
    description: `median ${median.toFixed(2)}, max ${(sorted.at(-1) ?? 0).toFixed(2)}, n=${sorted.length}`,
  });
  expect(median).toBeLessThan(10);

  expect(await callTool(mcp, 'remove_overlay', { overlay_id: id })).toMatchObject({
    structured: { removed: true },
  });
  await expect.poll(() => paintedOverlay(page, id)).toBeNull();
  expect((await callTool(mcp, 'clear_overlays', {})).structured).toEqual({ cleared: 21 });
  await expect.poll(() => paintedCount(page)).toBe(0);
});

test('click_at in assist mode asks with a crosshair; Approve performs the click', async ({
  page,
  stack,
}, testInfo) => {
  const desktop = await screenSize(stack.xEnv);
  const xev = await startXev(stack.xEnv);
  try {
    const target = { x: xev.rect.x + 60, y: xev.rect.y + 50 };
    const pending = callTool(mcp, 'click_at', { x: target.x, y: target.y });

    const panel = page.getByTestId('confirm-panel');
    await expect(panel).toBeVisible();
    await expect(panel).toContainText('Click with the left button');
    await expect(panel).toContainText(`At ${target.x}, ${target.y}`);
    await expect(page.getByTestId('confirm-countdown')).toContainText('Denied automatically in');
    // The panel is beside the display, not inside it.
    expect(await panel.evaluate((el) => el.closest('[data-remote-display]') === null)).toBe(true);

    const ring = page.locator('.confirm-preview__crosshair .confirm-preview__ring');
    const expected = await pageOf(page, desktop.width, target.x, target.y);
    const drawn = await centre(ring);
    expect(Math.abs(drawn.x - expected.x)).toBeLessThan(1.5);
    expect(Math.abs(drawn.y - expected.y)).toBeLessThan(1.5);

    await page.screenshot({ path: testInfo.outputPath('confirm-click.png') });
    expect(xev.log()).not.toContain('ButtonPress');

    const approve = page.getByRole('button', { name: 'Approve', exact: true });
    await expect(approve).not.toHaveAttribute('aria-disabled', 'true');
    await approve.click();
    const result = await pending;
    expect(result.isError, result.text).toBe(false);
    expect(result.structured).toEqual({ success: true, was_confirmed: true });
    await expect(panel).toHaveCount(0);

    expect(await pointerLocation(stack.xEnv)).toEqual(target);
    await expect
      .poll(() => xev.log())
      .toMatch(
        new RegExp(`ButtonPress[\\s\\S]*root:\\(${target.x},${target.y}\\)[\\s\\S]*button 1`),
      );
  } finally {
    xev.stop();
  }
});

test('Deny answers permission_denied and nothing happens on the desktop', async ({
  page,
  stack,
}) => {
  const xev = await startXev(stack.xEnv);
  try {
    const target = { x: xev.rect.x + 30, y: xev.rect.y + 30 };
    const pending = callTool(mcp, 'click_at', { x: target.x, y: target.y, button: 'right' });
    await expect(page.getByTestId('confirm-panel')).toContainText('right button');
    await page.getByRole('button', { name: 'Deny', exact: true }).click();
    const result = await pending;
    expect(result.isError).toBe(true);
    expect(result.text).toMatch(/^permission_denied: /);
    await page.waitForTimeout(300);
    expect(xev.log()).not.toContain('ButtonPress');
  } finally {
    xev.stop();
  }
});

test('Stop denies a pending call and switches to passive', async ({ page }) => {
  const pending = callTool(mcp, 'type_text', { text: 'echo never typed' });
  const panel = page.getByTestId('confirm-panel');
  await expect(panel).toContainText('Type text');
  await expect(page.getByTestId('confirm-verbatim')).toHaveText('echo never typed');
  await page.getByRole('button', { name: 'Stop', exact: true }).click();
  const result = await pending;
  expect(result.isError).toBe(true);
  expect(result.text).toMatch(/^cancelled: /);
  await expect(panel).toHaveCount(0);
  await expect(page.getByTestId('mode-select')).toHaveValue('passive');
  // Passive now: input is refused without asking.
  const refused = await callTool(mcp, 'click_at', { x: 1, y: 1 });
  expect(refused.text).toMatch(/^permission_denied: /);
  await expect(panel).toHaveCount(0);
});

test("the person's clicks reach subscribe_events; their keys too, once they allow key reading", async ({
  page,
  stack,
}) => {
  const desktop = await screenSize(stack.xEnv);
  const read = async (id: string, types: string[]) => {
    const seen: Array<{ type: string; data: unknown }> = [];
    await expect
      .poll(
        async () => {
          const got = await callTool(mcp, 'get_events', { subscription_id: id });
          seen.push(...((got.structured?.events as typeof seen | undefined) ?? []));
          return seen.map((e) => e.type);
        },
        { timeout: 10_000 },
      )
      .toEqual(types);
    return seen;
  };

  // Key presses are the person's to share: off until they turn the toggle on.
  const refused = await callTool(mcp, 'subscribe_events', { events: ['key_press'] });
  expect(refused.isError).toBe(true);
  expect(refused.text).toMatch(/^permission_denied: .*Let the AI read my key presses/);
  await expect(page.getByTestId('key-reading-banner')).toHaveCount(0);

  const clicks = await callTool(mcp, 'subscribe_events', {
    events: ['mouse_click'],
    debounce_ms: 0,
  });
  // The line saying an AI follows the pointer comes with the subscription and moves the display
  // down a little: measure where to click once it is there.
  await expect(page.getByTestId('pointer-following-banner')).toBeVisible();
  const target = { x: 640, y: 700 }; // bare desktop below the xterm
  const at = await pageOf(page, desktop.width, target.x, target.y);
  await page.mouse.click(at.x, at.y);
  const [click] = await read(String(clicks.structured?.subscription_id), ['mouse_click']);
  // The event names the pixel the click reached on X. At a scale below 1 a page pixel spans
  // less than a desktop pixel, and the browser rounds the pointer to whole page pixels, so that
  // pixel may be the target's neighbour; it is never another pixel than X's.
  const landed = await pointerLocation(stack.xEnv);
  expect(click?.data).toEqual({ ...landed, button: 'left' });
  expect(Math.abs(landed.x - target.x)).toBeLessThanOrEqual(1);
  expect(Math.abs(landed.y - target.y)).toBeLessThanOrEqual(1);

  await setPermissions(stack, { read_key_events: true });
  try {
    const keys = await callTool(mcp, 'subscribe_events', {
      events: ['mouse_click', 'key_press'],
      debounce_ms: 0,
    });
    expect(keys.isError, keys.text).toBe(false);
    const id = String(keys.structured?.subscription_id);
    // While the AI reads key presses, the viewer says so plainly.
    await expect(page.getByTestId('key-reading-banner')).toContainText(
      'An AI is reading your key presses.',
    );
    // The display still has the keyboard (the click above gave it).
    await page.keyboard.press('q');
    const [key] = await read(id, ['key_press']);
    expect(key?.data).toEqual({ key: 'q', keysym: 0x71 });
    // The "q" went to the xterm's shell prompt: clear the line for the tests that type there.
    await page.keyboard.press('Control+u');
    await callTool(mcp, 'unsubscribe_events', { subscription_id: id });
    await expect(page.getByTestId('key-reading-banner')).toHaveCount(0);
  } finally {
    await setPermissions(stack, { read_key_events: false });
  }
});

// The key-reading banner moves the display to a fractional page offset; the viewer's
// mouse_click must map the pointer exactly as Guacamole.Mouse does (whole-pixel element offsets)
// so the AI is told the pixel the desktop received (it was one off: 639,699 for 640,699).
test('with the key banner shown, mouse_click reports the pixel the desktop received', async ({
  page,
  stack,
}) => {
  const desktop = await screenSize(stack.xEnv);
  await setPermissions(stack, { read_key_events: true });
  try {
    const sub = await callTool(mcp, 'subscribe_events', {
      events: ['mouse_click', 'key_press'],
      debounce_ms: 0,
    });
    const id = String(sub.structured?.subscription_id);
    await expect(page.getByTestId('key-reading-banner')).toBeVisible();
    await displaySettled(page);
    const at = await pageOf(page, desktop.width, 640, 700);
    await page.mouse.click(at.x, at.y);
    let events: Array<{ type: string; data: { x: number; y: number } }> = [];
    await expect
      .poll(async () => {
        const got = await callTool(mcp, 'get_events', { subscription_id: id });
        events = [...events, ...((got.structured?.events as typeof events | undefined) ?? [])];
        return events.length;
      })
      .toBeGreaterThan(0);
    const landed = await pointerLocation(stack.xEnv);
    await callTool(mcp, 'unsubscribe_events', { subscription_id: id });
    expect(events[0]?.data).toMatchObject(landed);
  } finally {
    await setPermissions(stack, { read_key_events: false });
  }
});

test('a page that asks to be headless is an ordinary window: the person approves, not the MCP client', async ({
  page,
  stack,
}) => {
  const questions: string[] = [];
  const asking = await connectMcp(stack, (message) => {
    questions.push(message);
    return true;
  });
  const xev = await startXev(stack.xEnv);
  try {
    await page.goto(`${stack.url}?headless=1`);
    await expect(page.getByTestId('connection-label')).toHaveText('Connected', { timeout: 30_000 });
    await expect(page.getByTestId('ai-link')).toHaveAttribute('data-link', 'open', {
      timeout: 15_000,
    });
    await expect.poll(() => viewerRole(page), { timeout: 10_000 }).toBe('control');
    const target = { x: xev.rect.x + 40, y: xev.rect.y + 40 };

    const pending = callTool(asking, 'click_at', { x: target.x, y: target.y });
    // The person is asked in the page; the client's elicitation is never used.
    await expect(page.getByTestId('confirm-panel')).toContainText('Click with the left button');
    expect(xev.log()).not.toContain('ButtonPress');
    const approve = page.getByRole('button', { name: 'Approve', exact: true });
    await expect(approve).not.toHaveAttribute('aria-disabled', 'true');
    await approve.click();
    const approved = await pending;
    expect(approved.isError, approved.text).toBe(false);
    expect(approved.structured).toEqual({ success: true, was_confirmed: true });
    expect(questions).toEqual([]);
    await expect.poll(() => xev.log()).toContain(`root:(${target.x},${target.y})`);
  } finally {
    xev.stop();
    await asking.close();
  }
});

test.describe('serve --headless-viewer', () => {
  let headless: RunningStack | undefined;
  test.afterAll(async () => {
    await headless?.stop();
  });

  test('headless: the MCP client never raises the mode, answers only when the person allowed it (audited as the client), and a window of the person takes over the asking', async ({
    browser,
  }) => {
    test.setTimeout(120_000);
    // A stack of its own: only `serve --headless-viewer` can start a headless viewer (its
    // Chromium gets a sign-in session the bridge minted in-process); no page can ask to be one.
    headless = await startStack({ flags: ['--headless-viewer'] });
    const stack = headless;
    const questions: string[] = [];
    const asking = await connectMcp(stack, (message) => {
      questions.push(message);
      return true;
    });
    const xev = await startXev(stack.xEnv);
    const context = await browser.newContext();
    try {
      // The headless viewer is the control window once a read tool answers (nobody else is
      // connected yet).
      await expect
        .poll(async () => (await callTool(asking, 'get_display_info', {})).isError, {
          timeout: 40_000,
        })
        .toBe(false);
      const target = { x: xev.rect.x + 40, y: xev.rect.y + 40 };

      // Raising the mode is never the client's to approve, whatever it would answer.
      const raise = await callTool(asking, 'set_mode', { mode: 'autopilot' });
      expect(raise.text).toMatch(/^permission_denied: .*never approved through the MCP client/);
      // Approving through the client is off until the person turns it on.
      const off = await callTool(asking, 'click_at', target);
      expect(off.text).toMatch(/^permission_denied: .*Let my AI client ask me for approvals/);
      expect(questions).toEqual([]);

      await setPermissions(stack, { approvals_through_client: true });
      const approved = await callTool(asking, 'click_at', target);
      expect(approved.isError, approved.text).toBe(false);
      // The client answered, not the person: not "confirmed", and the audit names the client.
      expect(approved.structured).toEqual({ success: true, was_confirmed: false });
      expect(questions).toHaveLength(1);
      expect(questions[0]).toContain('click_at');
      await expect.poll(() => xev.log()).toContain(`root:(${target.x},${target.y})`);
      const admin = await adminSession(stack);
      const audit = (await (await admin.request('/api/audit?tool=click_at')).json()) as {
        entries: Array<{ approved_by: string | null; outcome: string | null }>;
      };
      expect(audit.entries.find((e) => e.outcome === 'ok')?.approved_by).toMatch(
        /^the MCP client ".*" \(.*\), for /,
      );

      // A window of the person's takes the asking over: the next question is theirs.
      await signInContext(context, stack);
      const window = await context.newPage();
      await window.goto(stack.url);
      await expect.poll(() => viewerRole(window), { timeout: 30_000 }).toBe('control');
      const second = { x: target.x + 10, y: target.y };
      const pending = callTool(asking, 'click_at', second);
      await expect(window.getByTestId('confirm-panel')).toContainText(
        `At ${second.x}, ${second.y}`,
      );
      await window.getByRole('button', { name: 'Approve', exact: true }).click();
      const result = await pending;
      expect(result.structured).toEqual({ success: true, was_confirmed: true });
      expect(questions).toHaveLength(1);
      await expect.poll(() => xev.log()).toContain(`root:(${second.x},${second.y})`);
    } finally {
      xev.stop();
      await asking.close();
      await context.close();
    }
  });
});

test("only the person's click approves: not a script's click, not Escape meant for the desktop", async ({
  page,
}) => {
  const pending = callTool(mcp, 'press_key', { keys: 'ctrl+alt+Delete' });
  const panel = page.getByTestId('confirm-panel');
  await expect(panel).toContainText('Press keys');
  await expect(page.getByTestId('confirm-verbatim')).toHaveText('ctrl+alt+Delete');
  const approve = page.getByRole('button', { name: 'Approve', exact: true });
  await expect(approve).not.toHaveAttribute('aria-disabled', 'true');
  // A click made by script (as page code or an extension could) is not trusted: ignored.
  await approve.evaluate((button) => (button as HTMLButtonElement).click());
  // Escape while the desktop has the keyboard belongs to the desktop, not to the panel.
  await page.locator('[data-remote-display]').focus();
  await page.keyboard.press('Escape');
  await page.waitForTimeout(300);
  await expect(panel).toBeVisible();
  // That Escape reached the xterm's shell, where it starts a key sequence: cancel it (C-g) and
  // clear the line (C-u) so later tests typing there start clean.
  await page.keyboard.press('Control+g');
  await page.keyboard.press('Control+u');
  // Escape with the keyboard on the page itself denies.
  await page.getByTestId('mode-select').focus();
  await page.keyboard.press('Escape');
  const result = await pending;
  expect(result.text).toMatch(/^permission_denied: /);
  await expect(panel).toHaveCount(0);
});

test('the AI asking for autopilot shows "from assist to autopilot" and needs Approve', async ({
  page,
}) => {
  const pending = callTool(mcp, 'set_mode', { mode: 'autopilot' });
  const panel = page.getByTestId('confirm-panel');
  await expect(panel).toContainText('Change the mode');
  await expect(panel).toContainText('The AI asks to go from assist to autopilot.');
  await expect(page.getByTestId('mode-select')).toHaveValue('assist');
  const approve = page.getByRole('button', { name: 'Approve', exact: true });
  await expect(approve).not.toHaveAttribute('aria-disabled', 'true');
  await approve.click();
  const result = await pending;
  expect(result.isError, result.text).toBe(false);
  expect(result.structured).toMatchObject({ ok: true, active_mode: 'autopilot' });
  await expect(page.getByTestId('mode-select')).toHaveValue('autopilot');
});
