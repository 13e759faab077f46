// What the AI is told while the bridge relaunches its headless viewer: a call waiting at it when
// it goes, and a call made before it is back, fail with viewer_unavailable saying "retry in N s"
// with retry_after_ms, never "open a browser" (nobody is there, and the bridge brings it back).
// A real bridge and MCP client; the headless window is a SCRIPTED VIEWER (test ws client) on a
// headless ticket, and the launcher is a STAND-IN reporting how long until it is back (the real
// Chromium relaunch is in headlessViewer.test.ts).
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callTool, errorOf, textOf } from '../mcp/testing/calls.js';
import { connectClient, startTestBridge, type TestBridge } from '../mcp/testing/fixtures.js';
import { ScriptedViewer } from '../mcp/testing/scriptedViewer.js';
import { waitUntil } from '../mcp/testing/wait.js';

describe('calls while the headless viewer is relaunched', () => {
  let bridge: TestBridge;
  let client: Client;
  /** What the stand-in launcher says: undefined while it has not noticed (or it is up). */
  let back: number | undefined;
  const hub = () => bridge.adminPlane.hub;

  beforeAll(async () => {
    bridge = await startTestBridge({ initialMode: 'autopilot' });
    bridge.desktopControl.expectHeadless({ backInMs: () => back });
    ({ client } = await connectClient(bridge));
  });
  afterAll(async () => {
    await client.close();
    await bridge.close();
  });

  /** A call waiting at `viewer` (which never answers), and the viewer then gone. */
  async function pendingThenGone(viewer: ScriptedViewer): Promise<CallToolResult> {
    viewer.on('get_display_info', 'ignore');
    const call = callTool(client, 'get_display_info');
    await viewer.waitFor((m) => m.type === 'tool_call');
    await viewer.close();
    return call;
  }

  it("a person's window that goes: the usual guidance, no retry time", async () => {
    back = 1_500;
    const window = await ScriptedViewer.connect(bridge);
    const result = await pendingThenGone(window);
    expect(errorOf(result)).toMatchObject({ kind: 'viewer_unavailable' });
    expect(errorOf(result).retry_after_ms).toBeUndefined();
    expect(errorOf(result).message).toMatch(/Open http.* in a browser/);
  });

  it('the headless viewer goes with a call waiting: retry in N s, with retry_after_ms', async () => {
    back = 1_500;
    const headless = await ScriptedViewer.connect(bridge, { headless: true });
    expect(hub().control?.headless).toBe(true);
    const result = await pendingThenGone(headless);
    expect(errorOf(result)).toMatchObject({ kind: 'viewer_unavailable', retry_after_ms: 1_500 });
    expect(errorOf(result).message).toMatch(
      /^The viewer disconnected before answering, so the action may or may not have happened\. Take a screenshot to check\. The headless viewer stopped and the bridge is relaunching it; retry in 2 s\.$/,
    );
    expect(textOf(result)).not.toMatch(/browser/);

    // A call made before it is back is told the same.
    back = 700;
    const later = await callTool(client, 'get_display_info');
    expect(errorOf(later)).toMatchObject({ kind: 'viewer_unavailable', retry_after_ms: 700 });
    expect(errorOf(later).message).toMatch(/relaunching it; retry in 1 s\.$/);
  });

  it('before the launcher has noticed, a headless viewer that just left is still expected back', async () => {
    back = undefined;
    const headless = await ScriptedViewer.connect(bridge, { headless: true });
    await pendingThenGone(headless);
    const soon = await callTool(client, 'get_display_info');
    expect(errorOf(soon)).toMatchObject({ kind: 'viewer_unavailable', retry_after_ms: 2_000 });
    // Long after it left, with the launcher saying it is up, the usual guidance again.
    await waitUntil(() => hub().control === undefined, 1_000);
    await new Promise((r) => setTimeout(r, 2_100));
    const late = await callTool(client, 'get_display_info');
    expect(errorOf(late).retry_after_ms).toBeUndefined();
    expect(errorOf(late).message).toMatch(/in a browser/);
  });
});
