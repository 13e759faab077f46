// The headless viewer against the real stack (Xvnc, gateway, bridge, built viewer, Debian's
// Chromium): signed in with a headless session the bridge mints in-process for each launch, it
// joins as a headless control viewer and answers tools from the real desktop; a signed-in page
// that merely asks for headless (the old `?headless=1`) is an ordinary window; when its page is
// closed or Chromium is SIGKILLed it is relaunched and joins again with a fresh session (the
// old one ended); stop() leaves no Chromium behind.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pino } from 'pino';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { DesktopPlane } from '../mcp/desktopPlanes.js';
import { connectClient } from '../mcp/testing/fixtures.js';
import { waitUntil } from '../mcp/testing/wait.js';
import { chromium } from 'playwright-core';
import { HelloMessage } from '@overlay-companion/protocol';
import type { z } from 'zod';
import {
  JOIN_ALLOWANCE_MS,
  backInMs,
  startHeadlessViewer,
  relaunchDelay,
  type HeadlessViewer,
} from './headlessViewer.js';
import { errorOf, textOf } from '../mcp/testing/calls.js';
import { CHROMIUM_FLAGS, chromiumPath } from './chromium.js';
import { startLiveStack, type LiveStack } from './testing/liveStack.js';
import { chromiumChildren, isAlive } from './testing/processes.js';

/** Collects the launcher's log lines so the test can check that relaunches are logged. */
function recordingLogger(): { logger: pino.Logger; lines: Array<Record<string, unknown>> } {
  const lines: Array<Record<string, unknown>> = [];
  const logger = pino(
    { level: 'info' },
    { write: (line: string) => void lines.push(JSON.parse(line) as Record<string, unknown>) },
  );
  return { logger, lines };
}

async function displayInfo(client: Client, timeoutMs = 30_000): Promise<CallToolResult> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const result = (await client.callTool({ name: 'get_display_info' })) as CallToolResult;
    if (result.isError !== true || Date.now() > deadline) return result;
    await new Promise((r) => setTimeout(r, 250));
  }
}

describe('relaunch backoff', () => {
  it('doubles from the base delay up to the cap', () => {
    const policy = { baseMs: 500, maxMs: 30_000, stableAfterMs: 60_000 };
    expect([0, 1, 2, 3, 10, 1000].map((n) => relaunchDelay(n, policy))).toEqual([
      500, 1000, 2000, 4000, 30_000, 30_000,
    ]);
  });
});

describe('how long until a relaunched viewer is back', () => {
  const now = 100_000;
  it('waits out the scheduled relaunch, then the launch and the join', () => {
    expect(backInMs({ relaunchAt: now + 800 }, now)).toBe(800 + JOIN_ALLOWANCE_MS);
    expect(backInMs({ relaunchAt: now - 50 }, now)).toBe(JOIN_ALLOWANCE_MS);
  });
  it('counts a launch under way from its start, never below half a second', () => {
    expect(backInMs({ launchingSince: now - 500 }, now)).toBe(JOIN_ALLOWANCE_MS - 500);
    expect(backInMs({ launchingSince: now - 10_000 }, now)).toBe(500);
  });
  it('gives a loaded page a moment to join, then nothing: it is up', () => {
    expect(backInMs({ loadedAt: now - 100 }, now)).toBe(500);
    expect(backInMs({ loadedAt: now - 60_000 }, now)).toBeUndefined();
    expect(backInMs({}, now)).toBeUndefined();
  });
});

describe('headless viewer on the real stack', () => {
  let stack: LiveStack;
  let viewer: HeadlessViewer;
  let client: Client;
  const log = recordingLogger();
  let plane: DesktopPlane;
  const hub = () => plane.hub;
  /** The headless sessions minted so far, one per launch (as serve's signIn does). */
  const minted: string[] = [];

  beforeAll(async () => {
    stack = await startLiveStack();
    const { access, admin } = stack.fixture;
    plane = (await stack.bridge.desktopControl.defaultPlaneFor(admin.id))!;
    viewer = await startHeadlessViewer({
      bridgeUrl: stack.bridge.url,
      logger: log.logger,
      relaunch: { baseMs: 200, maxMs: 2000, stableAfterMs: 60_000 },
      signIn: () => {
        const previous = minted.at(-1);
        if (previous !== undefined) void access.sessions.end(previous, 'relaunched');
        const { session, cookieValue } = access.sessions.createHeadless(admin.id);
        minted.push(session.idHash);
        return { name: access.cookie.name, value: cookieValue };
      },
    });
    // As serve does: a call that finds no window during a relaunch is told to retry.
    stack.bridge.desktopControl.expectHeadless(viewer);
    ({ client } = await connectClient(stack.bridge));
  });
  afterAll(async () => {
    await client?.close();
    await viewer?.stop();
    await stack?.close();
  });

  it('joins as the headless control viewer and answers from the real desktop', async () => {
    await waitUntil(() => hub().control?.headless === true, 20_000);
    const result = await displayInfo(client);
    expect(result.isError).toBeUndefined();
    expect(result.structuredContent).toMatchObject({
      desktop: { width: stack.desktop.width, height: stack.desktop.height },
    });
    expect(viewer.launches).toBe(1);
    expect(minted).toHaveLength(1);
    // The plain viewer URL: nothing in it makes the page headless.
    expect(viewer.url).toBe(stack.bridge.url);
  });

  it('a signed-in page that asks for headless is an ordinary window, and takes control from the headless viewer', async () => {
    const browser = await chromium.launch({
      executablePath: chromiumPath(),
      headless: true,
      args: [...CHROMIUM_FLAGS],
    });
    try {
      const context = await browser.newContext();
      await context.addCookies([{ ...(await stack.adminCookie()), url: stack.bridge.url }]);
      const page = await context.newPage();
      // What the bridge tells this page about itself, read off its viewer socket.
      const hello = new Promise<z.infer<typeof HelloMessage>>((resolve) => {
        page.on('websocket', (ws) => {
          ws.on('framereceived', ({ payload }) => {
            const parsed = HelloMessage.safeParse(
              (() => {
                try {
                  return JSON.parse(String(payload)) as unknown;
                } catch {
                  return undefined;
                }
              })(),
            );
            if (parsed.success) resolve(parsed.data);
          });
        });
      });
      const before = hub().size;
      await page.goto(new URL('/?headless=1', stack.bridge.url).toString());
      const said = await hello;
      // The person's window: ordinary (not headless), and it runs the calls now, so the person
      // is asked there rather than the MCP client.
      expect(said).toMatchObject({ headless: false, role: 'control' });
      await waitUntil(() => hub().size === before + 1, 20_000);
      expect(hub().roleOf(said.viewer_id)).toBe('control');
      await page.close();
      await waitUntil(() => hub().size === before, 10_000);
      // With the person gone, the headless viewer controls again.
      expect(hub().control?.headless).toBe(true);
    } finally {
      await browser.close();
    }
  });

  it('relaunches and rejoins when its page is closed; meanwhile calls are told to retry in N s', async () => {
    const before = hub().control?.id;
    await viewer.page?.close();
    await waitUntil(() => hub().control === undefined, 5_000);
    const meanwhile = (await client.callTool({ name: 'get_display_info' })) as CallToolResult;
    const error = errorOf(meanwhile);
    expect(error.kind).toBe('viewer_unavailable');
    expect(error.message).toMatch(/relaunching it; retry in [1-9]\d* s\.$/);
    expect(error.retry_after_ms).toBeGreaterThan(0);
    expect(error.retry_after_ms).toBeLessThanOrEqual(200 + JOIN_ALLOWANCE_MS);
    expect(textOf(meanwhile)).not.toMatch(/in a browser/);
    await waitUntil(() => viewer.launches === 2, 10_000);
    await waitUntil(() => hub().control?.headless === true && hub().control?.id !== before, 20_000);
    expect(log.lines.some((l) => l.reason === 'the viewer page was closed')).toBe(true);
    expect(minted).toHaveLength(2);
    expect((await displayInfo(client)).isError).toBeUndefined();
  });

  it('relaunches and rejoins when Chromium is killed with SIGKILL', async () => {
    const pids = chromiumChildren();
    expect(pids).toHaveLength(1);
    const before = hub().control?.id;
    process.kill(pids[0] ?? -1, 'SIGKILL');
    await waitUntil(() => viewer.launches === 3, 10_000);
    await waitUntil(() => hub().control?.headless === true && hub().control?.id !== before, 20_000);
    // Whichever Playwright reports first (browser disconnected, page closed/crashed) is logged.
    const gone = log.lines.filter((l) => l.msg === 'headless viewer gone; relaunching Chromium');
    expect(gone).toHaveLength(2);
    expect(gone[1]?.reason).toMatch(
      /Chromium exited or crashed|the viewer page (crashed|was closed)/,
    );
    expect((await displayInfo(client)).isError).toBeUndefined();
  });

  it('stop() closes Chromium and the viewer leaves', async () => {
    const pids = chromiumChildren();
    expect(pids).toHaveLength(1);
    await viewer.stop();
    await waitUntil(() => hub().size === 0, 5000);
    await waitUntil(() => pids.every((pid) => !isAlive(pid)), 5000);
    expect(viewer.page).toBeUndefined();
  });
});
