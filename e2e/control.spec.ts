// The control plane end to end: a real MCP client (the SDK's) calls the bridge's /mcp, the
// bridge relays to the real viewer in Chromium, the viewer acts on a real Xvnc desktop. Checks
// what the person sees (overlay and confirmation elements, where they are) and what really
// happened on the desktop (pointer position and a ButtonPress seen by an `xev` window).
/// <reference lib="dom" />
import { spawn, type ChildProcess } from 'node:child_process';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Locator, Page } from '@playwright/test';
import { expect, test } from './fixtures.js';
import type { RunningStack } from './support/bridgeProcess.js';
import { screenSize } from './support/xdesktop.js';

const run = promisify(execFile);

interface ToolOutcome {
  isError: boolean;
  text: string;
  structured: Record<string, unknown> | undefined;
}

/** The bearer token the bridge printed in its client configuration at start. */
function mcpToken(stack: RunningStack): string {
  const match = /"Authorization":\s*"Bearer ([^"]+)"/.exec(stack.output());
  if (!match?.[1]) throw new Error(`The bridge printed no MCP bearer token.\n${stack.output()}`);
  return match[1];
}

async function connectMcp(stack: RunningStack): Promise<Client> {
  const client = new Client({ name: 'overlay-companion-e2e', version: '0.0.0' });
  const transport = new StreamableHTTPClientTransport(new URL('/mcp', stack.url), {
    requestInit: { headers: { Authorization: `Bearer ${mcpToken(stack)}` } },
  });
  await client.connect(transport);
  return client;
}

async function callTool(
  client: Client,
  name: string,
  args: Record<string, unknown>,
): Promise<ToolOutcome> {
  const result = await client.callTool({ name, arguments: args }, undefined, { timeout: 60_000 });
  const content = Array.isArray(result.content)
    ? (result.content as Array<{ type: string; text?: string }>)
    : [];
  return {
    isError: result.isError === true,
    text: content
      .filter((c) => c.type === 'text')
      .map((c) => c.text ?? '')
      .join('\n'),
    structured: result.structuredContent as Record<string, unknown> | undefined,
  };
}

/** Records, in the page, how long the viewer takes from receiving a tool_call to sending its tool_result. */
function recordViewerLatency(): void {
  const samples: number[] = [];
  (window as unknown as { __ocLatency: number[] }).__ocLatency = samples;
  const Original = window.WebSocket;
  class Measured extends Original {
    constructor(url: string | URL, protocols?: string | string[]) {
      super(url, protocols);
      if (!String(url).includes('/ws/viewer')) return;
      const received = new Map<string, number>();
      this.addEventListener('message', (event: MessageEvent) => {
        const at = performance.now();
        const message = JSON.parse(String(event.data)) as { type?: string; id?: string };
        if (message.type === 'tool_call' && message.id !== undefined) received.set(message.id, at);
      });
      const send = this.send.bind(this);
      this.send = (data: string | ArrayBufferLike | Blob | ArrayBufferView) => {
        send(data);
        const at = performance.now();
        if (typeof data !== 'string') return;
        const message = JSON.parse(data) as { type?: string; id?: string };
        const start = message.id === undefined ? undefined : received.get(message.id);
        if (message.type === 'tool_result' && start !== undefined) samples.push(at - start);
      };
    }
  }
  window.WebSocket = Measured;
}

/** An `xev` window on the desktop: a real X client that reports the clicks it receives. */
async function startXev(env: NodeJS.ProcessEnv): Promise<{
  rect: { x: number; y: number; width: number; height: number };
  log: () => string;
  stop: () => void;
}> {
  let log = '';
  const child: ChildProcess = spawn('xev', ['-geometry', '240x160+760+420', '-event', 'button'], {
    env,
  });
  child.stdout?.on('data', (chunk: Buffer) => (log += chunk.toString()));
  const { stdout } = await run(
    'xdotool',
    ['search', '--sync', '--onlyvisible', '--name', 'Event Tester'],
    { env, timeout: 15_000 },
  );
  const id = stdout.trim().split('\n')[0] ?? '';
  const shell = (await run('xdotool', ['getwindowgeometry', '--shell', id], { env })).stdout;
  const value = (key: string) => Number(new RegExp(`^${key}=(-?\\d+)$`, 'm').exec(shell)?.[1]);
  return {
    rect: { x: value('X'), y: value('Y'), width: value('WIDTH'), height: value('HEIGHT') },
    log: () => log,
    stop: () => child.kill('SIGTERM'),
  };
}

async function pointerLocation(env: NodeJS.ProcessEnv): Promise<{ x: number; y: number }> {
  const { stdout } = await run('xdotool', ['getmouselocation', '--shell'], { env });
  const value = (key: string) => Number(new RegExp(`^${key}=(\\d+)$`, 'm').exec(stdout)?.[1]);
  return { x: value('X'), y: value('Y') };
}

async function centre(locator: Locator): Promise<{ x: number; y: number }> {
  const box = await locator.boundingBox();
  if (!box) throw new Error('element not visible');
  return { x: box.x + box.width / 2, y: box.y + box.height / 2 };
}

/** Page position of the centre of desktop pixel (x, y). */
async function pageOf(page: Page, desktopWidth: number, x: number, y: number) {
  const box = await page.locator('.remote-display__canvas').boundingBox();
  if (!box) throw new Error('The remote display is not visible.');
  const scale = box.width / desktopWidth;
  return { x: box.x + (x + 0.5) * scale, y: box.y + (y + 0.5) * scale, scale };
}

let mcp: Client;

test.beforeEach(async ({ page, stack, viewer }) => {
  await page.addInitScript(recordViewerLatency);
  await viewer.open();
  await viewer.waitConnected();
  await expect(page.getByTestId('ai-link')).toHaveText('AI link up', { timeout: 15_000 });
  // A window closed by the previous test may still hold control for a moment.
  await expect
    .poll(
      () =>
        page.evaluate(
          () =>
            (
              window as unknown as { __overlayCompanion: { control(): { role: string | null } } }
            ).__overlayCompanion.control().role,
        ),
      { timeout: 10_000 },
    )
    .toBe('control');
  const mode = page.getByTestId('mode-select');
  if ((await mode.inputValue()) !== 'assist') await mode.selectOption('assist');
  await expect(mode).toHaveValue('assist');
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
    monitor_index: null,
  });

  const element = page.locator(`[data-overlay-id="${id}"]`);
  await expect(element).toBeVisible();
  await expect(element).toContainText('Here');
  const box = await element.boundingBox();
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
  for (let i = 0; i < 20; i++)
    await callTool(mcp, 'draw_overlay', { x: i, y: i, width: 5, height: 5, color: 'gold' });
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
  await expect(element).toHaveCount(0);
  expect((await callTool(mcp, 'clear_overlays', {})).structured).toEqual({ cleared: 21 });
  await expect(page.locator('[data-overlay-id]')).toHaveCount(0);
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

    const approve = page.getByRole('button', { name: 'Approve' });
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
    await page.getByRole('button', { name: 'Deny' }).click();
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
  await page.getByRole('button', { name: 'Stop' }).click();
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
