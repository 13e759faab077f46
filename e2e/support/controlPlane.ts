// Helpers for the control-plane e2e specs (control*.spec.ts): an MCP client from the official
// SDK against the bridge's /mcp (with the stack's OC_MCP_TOKEN or a token made on /config), tool
// calls reduced to {isError, text, structured}, an `xev` window that reports the clicks the
// desktop really delivers, page positions of desktop pixels, and a probe of the viewer's own
// answer latency.
/// <reference lib="dom" />
import { spawn, type ChildProcess } from 'node:child_process';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { expect, type Locator, type Page } from '@playwright/test';
import type { RemoteStack } from './bridgeProcess.js';
import { shownDisplayBox } from './displayBox.js';
import { signInContext } from './signIn.js';

const run = promisify(execFile);

export interface ToolOutcome {
  isError: boolean;
  /** The text content joined, e.g. "rate_limited: Too many calls ..." on an error. */
  text: string;
  structured: Record<string, unknown> | undefined;
  /** Base64 of the first image content block, when there is one. */
  image: string | undefined;
}

/** The token MCP clients use: the stack's OC_MCP_TOKEN (serve never prints one). */
export function mcpToken(stack: RemoteStack): string {
  if (stack.mcpToken === undefined) {
    throw new Error('This stack was started with mcp: false, so it has no OC_MCP_TOKEN.');
  }
  return stack.mcpToken;
}

/**
 * An MCP client for the bridge. With `elicit`, the client declares the elicitation capability
 * and answers the bridge's approval questions with it (the headless-viewer path).
 */
export async function connectMcp(
  stack: RemoteStack,
  elicit?: (message: string) => boolean,
): Promise<Client> {
  const client = new Client(
    { name: 'overlay-companion-e2e', version: '0.0.0' },
    elicit === undefined ? {} : { capabilities: { elicitation: {} } },
  );
  if (elicit !== undefined) {
    client.setRequestHandler(ElicitRequestSchema, (request) => {
      const message = 'message' in request.params ? String(request.params.message) : '';
      return { action: 'accept', content: { approve: elicit(message) } };
    });
  }
  const transport = new StreamableHTTPClientTransport(new URL('/mcp', stack.url), {
    requestInit: { headers: { Authorization: `Bearer ${mcpToken(stack)}` } },
  });
  await client.connect(transport);
  return endingSession(client, transport);
}

/**
 * Makes `client.close()` end its MCP session on the bridge first (DELETE /mcp), as a well-behaved
 * client does: the specs share one stack per worker, and the bridge caps a token's open sessions.
 */
function endingSession(client: Client, transport: StreamableHTTPClientTransport): Client {
  const close = client.close.bind(client);
  client.close = async () => {
    await transport.terminateSession().catch(() => undefined);
    await close();
  };
  return client;
}

/**
 * An MCP client of the bridge at `url` with `token` — e.g. one a person made on /config, pasted
 * the way the page's client configuration says. `name` is the client name the audit log shows.
 */
export async function connectMcpWithToken(
  url: string,
  token: string,
  name = 'overlay-companion-e2e',
): Promise<Client> {
  const client = new Client({ name, version: '0.0.0' });
  const transport = new StreamableHTTPClientTransport(new URL('/mcp', url), {
    requestInit: { headers: { Authorization: `Bearer ${token}` } },
  });
  await client.connect(transport);
  return endingSession(client, transport);
}

export async function callTool(
  client: Client,
  name: string,
  args: Record<string, unknown>,
  timeoutMs = 60_000,
): Promise<ToolOutcome> {
  const result = await client.callTool({ name, arguments: args }, undefined, {
    timeout: timeoutMs,
  });
  const content = Array.isArray(result.content)
    ? (result.content as Array<{ type: string; text?: string; data?: string }>)
    : [];
  return {
    isError: result.isError === true,
    text: content
      .filter((c) => c.type === 'text')
      .map((c) => c.text ?? '')
      .join('\n'),
    structured: result.structuredContent as Record<string, unknown> | undefined,
    image: content.find((c) => c.type === 'image')?.data,
  };
}

/** Records, in the page, how long the viewer takes from receiving a tool_call to sending its tool_result. */
export function recordViewerLatency(): void {
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
export async function startXev(env: NodeJS.ProcessEnv): Promise<{
  rect: { x: number; y: number; width: number; height: number };
  log: () => string;
  stop: () => void;
}> {
  let log = '';
  const child: ChildProcess = spawn('xev', ['-geometry', '240x160+1010+440', '-event', 'button'], {
    env,
  });
  child.stdout?.on('data', (chunk: Buffer) => (log += chunk.toString()));
  const { stdout } = await run(
    'xdotool',
    ['search', '--sync', '--onlyvisible', '--name', 'Event Tester'],
    { env, timeout: 15_000 },
  );
  const id = stdout.trim().split('\n')[0] ?? '';
  // Right of the desktop's xterm, and raised: a window manager may map a new window below the
  // focused one, and then the clicks would land on the xterm instead.
  await run('xdotool', ['windowraise', id], { env });
  const shell = (await run('xdotool', ['getwindowgeometry', '--shell', id], { env })).stdout;
  const value = (key: string) => Number(new RegExp(`^${key}=(-?\\d+)$`, 'm').exec(shell)?.[1]);
  return {
    rect: { x: value('X'), y: value('Y'), width: value('WIDTH'), height: value('HEIGHT') },
    log: () => log,
    stop: () => child.kill('SIGTERM'),
  };
}

export async function centre(locator: Locator): Promise<{ x: number; y: number }> {
  const box = await locator.boundingBox();
  if (!box) throw new Error('element not visible');
  return { x: box.x + box.width / 2, y: box.y + box.height / 2 };
}

/** Page position of the centre of desktop pixel (x, y). */
export async function pageOf(page: Page, desktopWidth: number, x: number, y: number) {
  const box = await shownDisplayBox(page);
  const scale = box.width / desktopWidth;
  return { x: box.x + (x + 0.5) * scale, y: box.y + (y + 0.5) * scale, scale };
}

/** The viewer's read-only test API (window.__overlayCompanion) as the tests use it. */
interface TestApi {
  control(): { role: string | null; mode: string | null };
  overlays(): Array<{ overlay_id: string }>;
}

export async function viewerRole(page: Page): Promise<string | null> {
  return page.evaluate(
    () => (window as unknown as { __overlayCompanion: TestApi }).__overlayCompanion.control().role,
  );
}

const MODE_ORDER = ['passive', 'assist', 'autopilot'];

/**
 * Opens the viewer at `query` (e.g. a monitor's `?vx=…` crop) in an already signed-in page and
 * waits for the desktop and the AI link.
 */
export async function openViewerAt(page: Page, stack: RemoteStack, query: string): Promise<void> {
  await page.goto(new URL(query, stack.url).toString());
  await expect(page.getByTestId('connection-label')).toHaveText('Connected', { timeout: 30_000 });
  // "Connected" comes with the handshake; the desktop's size arrives with its first frame, and
  // tools that need it (screenshots, display info) answer system_error until then.
  await expect(page.getByTestId('desktop-size')).toBeVisible({ timeout: 15_000 });
  await expect(page.getByTestId('ai-link')).toHaveAttribute('data-link', 'open', {
    timeout: 15_000,
  });
}

/**
 * Signs the page's context in and opens the viewer, waits for the desktop and the AI link,
 * waits until this window is the control window (one closed by an earlier test may hold control
 * for a moment), and has the person pick `mode` in the selector — approving it in the panel
 * when it raises the mode, as the bridge asks then.
 */
export async function openControlViewer(
  page: Page,
  stack: RemoteStack,
  mode: string,
): Promise<void> {
  await signInContext(page.context(), stack);
  await openViewerAt(page, stack, '/');
  await expect.poll(() => viewerRole(page), { timeout: 10_000 }).toBe('control');
  await setViewerMode(page, mode);
}

/**
 * Puts a control window's desktop in `mode` from the window's own selector, approving a raise as
 * the person would. The e2e stack is shared by the specs: a desktop keeps the mode the last one
 * left it in.
 */
export async function setViewerMode(page: Page, mode: string): Promise<void> {
  const select = page.getByTestId('mode-select');
  const current = await select.inputValue();
  if (current !== mode) {
    await select.selectOption(mode);
    if (MODE_ORDER.indexOf(mode) > MODE_ORDER.indexOf(current)) {
      // A window raises the mode only through an approval the person answers.
      await expect(page.getByTestId('confirm-panel')).toContainText(`Confirm: switch to ${mode}`);
      const approve = page.getByRole('button', { name: 'Approve', exact: true });
      await expect(approve).not.toHaveAttribute('aria-disabled', 'true');
      await approve.click();
      await expect(page.getByTestId('confirm-panel')).toHaveCount(0);
    }
  }
  await expect(select).toHaveValue(mode);
}
