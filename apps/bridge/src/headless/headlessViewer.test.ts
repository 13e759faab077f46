// The headless viewer against the real stack (Xvnc, gateway, bridge, built viewer, Debian's
// Chromium): it joins as a headless control viewer and answers tools from the real desktop;
// when its page is closed or Chromium is SIGKILLed it is relaunched and joins again; stop()
// leaves no Chromium behind.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pino } from 'pino';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { connectClient } from '../mcp/testing/fixtures.js';
import { waitUntil } from '../mcp/testing/wait.js';
import { startHeadlessViewer, relaunchDelay, type HeadlessViewer } from './headlessViewer.js';
import { headlessViewerUrl } from './chromium.js';
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
  it('adds headless=1 to the viewer URL', () => {
    expect(headlessViewerUrl('http://127.0.0.1:8080/')).toBe('http://127.0.0.1:8080/?headless=1');
  });
});

describe('headless viewer on the real stack', () => {
  let stack: LiveStack;
  let viewer: HeadlessViewer;
  let client: Client;
  const log = recordingLogger();
  const hub = () => stack.bridge.controlPlane.hub;

  beforeAll(async () => {
    stack = await startLiveStack();
    viewer = await startHeadlessViewer({
      bridgeUrl: stack.bridge.url,
      logger: log.logger,
      relaunch: { baseMs: 200, maxMs: 2000, stableAfterMs: 60_000 },
    });
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
  });

  it('relaunches and rejoins when its page is closed', async () => {
    const before = hub().control?.id;
    await viewer.page?.close();
    await waitUntil(() => viewer.launches === 2, 10_000);
    await waitUntil(() => hub().control?.headless === true && hub().control?.id !== before, 20_000);
    expect(log.lines.some((l) => l.reason === 'the viewer page was closed')).toBe(true);
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
