// Resilience with real parts: a real Chromium viewer page (Debian's binary via playwright-core)
// on the real stack (Xvnc, gateway, bridge). (1) The viewer goes away while a call waits at it
// — its page closed, or Chromium SIGKILLed — and the pending MCP call fails within 2 s, long
// before its own deadline. (2) The bridge process is restarted on the same port and data dir:
// old session ids get 404, the same token opens new sessions, and the page's control channel
// reconnects by itself (its "AI link" status says so again) — its sign-in survives the restart,
// since sessions live in the store in the data dir. Every page is signed in as the admin first.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { startLocalDesktop, type LocalDesktop } from '@overlay-companion/gateway';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { CHROMIUM_FLAGS, chromiumPath } from '../headless/chromium.js';
import { scriptedServeEnv, startServe, type CliProcess } from '../headless/testing/cliProcess.js';
import { startLiveStack, type LiveStack } from '../headless/testing/liveStack.js';
import { chromiumChildren } from '../headless/testing/processes.js';
import { callBudgetMs } from '../relay/timeouts.js';
import { toolDefinitions } from '@overlay-companion/protocol';
import { signIn } from '../testing/browserSession.js';
import type { DesktopPlane } from './desktopPlanes.js';
import { errorOf } from './testing/calls.js';
import { connectClient } from './testing/fixtures.js';
import { waitUntil } from './testing/wait.js';

const browsers: Browser[] = [];

/** Opens the viewer at `url` in a fresh Chromium whose context carries the sign-in cookie. */
async function openViewer(url: string, cookie: { name: string; value: string }): Promise<Page> {
  const browser = await chromium.launch({
    executablePath: chromiumPath(),
    headless: true,
    args: [...CHROMIUM_FLAGS],
  });
  browsers.push(browser);
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  await context.addCookies([{ ...cookie, url, httpOnly: true, sameSite: 'Strict' }]);
  const page = await context.newPage();
  await page.goto(url);
  return page;
}

/** `name=value` from a BrowserSession's cookie. */
function cookieParts(cookie: string): { name: string; value: string } {
  const at = cookie.indexOf('=');
  return { name: cookie.slice(0, at), value: cookie.slice(at + 1) };
}

/** The page's control-channel phase, from its read-only test API. */
const linkOf = (page: Page): Promise<string | undefined> =>
  page.evaluate(
    () =>
      (
        globalThis as unknown as { __overlayCompanion?: { control(): { link: string } } }
      ).__overlayCompanion?.control().link,
  );

/** Confirmations the page is showing the person, from its read-only test API. */
const pendingConfirmations = (page: Page): Promise<number | undefined> =>
  page.evaluate(
    () =>
      (
        globalThis as unknown as { __overlayCompanion?: { pendingConfirmations(): unknown[] } }
      ).__overlayCompanion?.pendingConfirmations().length,
  );

async function untilDisplayInfo(client: Client, timeoutMs = 30_000): Promise<CallToolResult> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const result = (await client.callTool({ name: 'get_display_info' })) as CallToolResult;
    if (result.isError !== true || Date.now() > deadline) return result;
    await new Promise((r) => setTimeout(r, 250));
  }
}

afterEach(async () => {
  for (const browser of browsers.splice(0)) await browser.close().catch(() => undefined);
});

describe('the viewer dies while a call waits at it', () => {
  let stack: LiveStack;
  let client: Client;
  let plane: DesktopPlane;
  const hub = () => plane.hub;
  // click_at in assist mode waits for the person at the viewer: a call that stays pending.
  const args = { x: 40, y: 40 };
  const budget = callBudgetMs('click_at', toolDefinitions.click_at.input.parse(args), 'confirm');

  beforeAll(async () => {
    stack = await startLiveStack({ initialMode: 'assist' });
    plane = (await stack.bridge.desktopControl.defaultPlaneFor(stack.fixture.admin.id))!;
    ({ client } = await connectClient(stack.bridge));
  });
  afterAll(async () => {
    await client?.close();
    await stack?.close();
  });

  /** Wrapped in an object: an async function returning the bare promise would await it. */
  async function pendingClick(page: Page): Promise<{ call: Promise<CallToolResult> }> {
    await waitUntil(() => hub().control !== undefined, 20_000);
    expect((await untilDisplayInfo(client)).isError).toBeUndefined();
    const call = client.callTool({ name: 'click_at', arguments: args }) as Promise<CallToolResult>;
    // The confirmation panel shows: the call is now waiting at the viewer for the person.
    await expect.poll(() => pendingConfirmations(page), { timeout: 10_000 }).toBe(1);
    expect(await page.getByTestId('confirm-panel').count()).toBe(1);
    expect(hub().pendingCalls).toBe(1);
    return { call };
  }

  it('page closed: the call fails with viewer_unavailable within 2 s', async () => {
    const page = await openViewer(stack.bridge.url, await stack.adminCookie());
    const { call } = await pendingClick(page);
    const closedAt = performance.now();
    await page.close();
    const result = await call;
    const elapsed = performance.now() - closedAt;
    console.log(
      `viewer page closed → MCP error after ${elapsed.toFixed(0)} ms (budget ${budget} ms)`,
    );
    expect(errorOf(result).kind).toBe('viewer_unavailable');
    expect(errorOf(result).message).toMatch(/disconnected before answering/);
    expect(elapsed).toBeLessThan(2000);
    expect(elapsed).toBeLessThan(budget);
  }, 60_000);

  it('Chromium SIGKILLed: the call fails with viewer_unavailable within 2 s', async () => {
    const page = await openViewer(stack.bridge.url, await stack.adminCookie());
    const { call } = await pendingClick(page);
    const pids = chromiumChildren();
    expect(pids).toHaveLength(1);
    const killedAt = performance.now();
    process.kill(pids[0] ?? -1, 'SIGKILL');
    const result = await call;
    const elapsed = performance.now() - killedAt;
    console.log(
      `Chromium SIGKILL → MCP error after ${elapsed.toFixed(0)} ms (budget ${budget} ms)`,
    );
    expect(errorOf(result).kind).toBe('viewer_unavailable');
    expect(elapsed).toBeLessThan(2000);
    expect(elapsed).toBeLessThan(budget);
  }, 60_000);
});

describe('the bridge process restarts on the same port and data dir', () => {
  let desktop: LocalDesktop;
  let dataDir: string;
  let cli: CliProcess | undefined;
  const clients: Client[] = [];
  const scripted = scriptedServeEnv();
  const token = scripted.token;

  beforeAll(async () => {
    // An external VNC server the bridge reaches over TCP (`--vnc HOST:PORT`).
    desktop = await startLocalDesktop({
      xterm: true,
      windowManager: true,
      password: 'resil1',
      rfbTcp: true,
    });
    dataDir = await mkdtemp(join(tmpdir(), 'oc-restart-'));
  });
  afterAll(async () => {
    for (const client of clients) await client.close().catch(() => undefined);
    await cli?.shutdown();
    await desktop?.stop();
    await rm(dataDir, { recursive: true, force: true });
  });

  const serve = (port: number) =>
    startServe(
      [
        '--port',
        String(port),
        '--data-dir',
        dataDir,
        '--vnc',
        `${desktop.host ?? ''}:${desktop.port ?? 0}`,
      ],
      { ...scripted.env, OC_VNC_PASSWORD: 'resil1' },
    );

  it('404s old sessions, accepts the same token, and the page reconnects by itself', async () => {
    const first = await serve(0);
    cli = first.cli;
    const port = Number(new URL(first.url).port);
    const admin = await signIn(first.url, scripted.username, scripted.password);
    const page = await openViewer(first.url, cookieParts(admin.cookie));
    await expect.poll(() => linkOf(page), { timeout: 20_000 }).toBe('open');
    await expect.poll(() => page.getByTestId('ai-link').getAttribute('data-link')).toBe('open');

    const old = await connectClient({ mcpUrl: first.mcpUrl }, { token });
    clients.push(old.client);
    expect((await untilDisplayInfo(old.client)).isError).toBeUndefined();
    const oldSession = old.transport.sessionId ?? '';
    expect(oldSession).not.toBe('');

    expect(await cli.stop('SIGINT')).toEqual({ code: 0, signal: null });
    await expect.poll(() => linkOf(page), { timeout: 10_000 }).toBe('reconnecting');

    const second = await serve(port);
    cli = second.cli;
    expect(second.url).toBe(first.url);

    const stale = await fetch(second.mcpUrl, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${token}`,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-session-id': oldSession,
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'tools/list' }),
    });
    expect(stale.status).toBe(404);
    expect(await stale.text()).toMatch(/Session not found/);
    await expect(old.client.listTools()).rejects.toThrow(/404|Session not found/);

    const fresh = await connectClient({ mcpUrl: second.mcpUrl }, { token });
    clients.push(fresh.client);
    expect((await fresh.client.listTools()).tools.length).toBeGreaterThan(10);

    const restartedAt = performance.now();
    await expect.poll(() => linkOf(page), { timeout: 30_000 }).toBe('open');
    await expect.poll(() => page.getByTestId('ai-link').getAttribute('data-link')).toBe('open');
    console.log(
      `viewer control channel open again ${(performance.now() - restartedAt).toFixed(0)} ms after the new bridge listened`,
    );
    // The page is the control viewer again and answers from the desktop.
    const info = await untilDisplayInfo(fresh.client);
    expect(info.structuredContent).toMatchObject({
      desktop: { width: desktop.width, height: desktop.height },
    });
  }, 120_000);
});
