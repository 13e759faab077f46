// Tool listing, argument validation and result shapes, through the real MCP client against a
// real bridge, with a SCRIPTED VIEWER (test ws client) answering tool calls.
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { TOOL_NAMES, toolDefinitions, type ToolName } from '@overlay-companion/protocol';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { callTool, errorOf, textOf } from './testing/calls.js';
import {
  TINY_PNG_BASE64,
  connectClient,
  screenshotResult,
  startTestBridge,
  type TestBridge,
} from './testing/fixtures.js';
import { ScriptedViewer } from './testing/scriptedViewer.js';
import { waitUntil } from './testing/wait.js';

describe('tools over MCP', () => {
  let bridge: TestBridge;
  let client: Client;
  let viewer: ScriptedViewer;

  beforeAll(async () => {
    bridge = await startTestBridge({ initialMode: 'autopilot' });
    ({ client } = await connectClient(bridge));
    // Caches output schemas in the client, so every result below is also checked against them.
    await client.listTools();
  });
  afterAll(async () => {
    await client.close();
    await bridge.close();
  });
  beforeEach(async () => {
    bridge.adminPlane.mode.set('autopilot', undefined, 'person');
    viewer = await ScriptedViewer.connect(bridge);
  });
  afterEach(async () => {
    expect(viewer.invalid).toEqual([]);
    await viewer.close();
  });

  it('lists every protocol tool with title, schemas and annotations', async () => {
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual([...TOOL_NAMES].sort());
    for (const tool of tools) {
      const def = toolDefinitions[tool.name as ToolName];
      expect(tool.title).toBe(def.title);
      expect(tool.description).toBe(def.description);
      expect(tool.inputSchema.type).toBe('object');
      expect(tool.outputSchema?.type).toBe('object');
      expect(tool.annotations).toMatchObject(def.annotations);
      expect(tool.annotations?.openWorldHint).toBe(false);
    }
    const click = tools.find((t) => t.name === 'click_at');
    expect(click?.inputSchema.required).toEqual(expect.arrayContaining(['x', 'y']));
    expect(click?.annotations?.destructiveHint).toBe(true);
    expect(tools.find((t) => t.name === 'take_screenshot')?.annotations?.readOnlyHint).toBe(true);
  });

  it('rejects invalid arguments with invalid_parameters naming the field; the viewer gets nothing', async () => {
    viewer.on('click_at', { result: { success: true, was_confirmed: false } });
    const negative = await callTool(client, 'click_at', { x: -5, y: 10 });
    expect(errorOf(negative).kind).toBe('invalid_parameters');
    expect(errorOf(negative).message).toMatch(/\bx: must be ≥ 0/);
    expect(textOf(negative)).toMatch(/^invalid_parameters: /);

    const extra = await callTool(client, 'draw_overlay', {
      x: 1,
      y: 1,
      width: 10,
      height: 10,
      color: 'not-a-color',
      bogus: 1,
    });
    expect(errorOf(extra).message).toMatch(/color: must be a CSS color/);
    expect(errorOf(extra).message).toMatch(/bogus: is not a known field/);

    const missing = await callTool(client, 'type_text', {});
    expect(errorOf(missing).message).toMatch(/text: is required/);

    const unknown = await callTool(client, 'format_disk', {});
    expect(errorOf(unknown).kind).toBe('invalid_parameters');
    // Give any stray relay a moment to arrive before asserting that none did.
    await new Promise((r) => setTimeout(r, 50));
    expect(viewer.toolCalls()).toEqual([]);
  });

  it('relays a valid call with parsed args (defaults applied) and returns structured content', async () => {
    viewer.on('draw_overlay', () => ({
      result: {
        overlay_id: 'ov_1',
        bounds: { x: 10, y: 20, width: 30, height: 40 },
        monitor_index: 0,
      },
    }));
    const result = await callTool(client, 'draw_overlay', {
      x: 10,
      y: 20,
      width: 30,
      height: 40,
      color: 'gold',
    });
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent).toEqual({
      overlay_id: 'ov_1',
      bounds: { x: 10, y: 20, width: 30, height: 40 },
      monitor_index: 0,
    });
    expect(textOf(result)).toMatch(/Drew overlay ov_1/);
    const [call] = viewer.toolCalls('draw_overlay');
    expect(call?.args).toMatchObject({ opacity: 0.5, click_through: true, color: 'gold' });
    expect(call?.policy).toBe('allow');
    expect(call?.deadline_ms).toBeGreaterThan(0);
  });

  it('returns take_screenshot as MCP image content plus metadata', async () => {
    viewer.on('take_screenshot', { result: screenshotResult() });
    const result = await callTool(client, 'take_screenshot', { full_screen: true });
    expect(result.isError).toBeFalsy();
    const image = result.content.find((c) => c.type === 'image');
    expect(image).toEqual({ type: 'image', data: TINY_PNG_BASE64, mimeType: 'image/png' });
    expect(result.structuredContent).toMatchObject({ width: 1, height: 1, format: 'png' });
    expect(result.structuredContent).not.toHaveProperty('data');
  });

  it('turns a malformed viewer result into system_error', async () => {
    viewer.on('get_display_info', { result: { desktop: { width: 'wide' } } });
    const result = await callTool(client, 'get_display_info');
    expect(errorOf(result).kind).toBe('system_error');
    expect(errorOf(result).message).toMatch(/invalid get_display_info result/);
  });

  it("passes the viewer's tool_error through with its kind", async () => {
    viewer.on('set_clipboard', {
      error: { kind: 'system_error', message: 'clipboard stream failed' },
    });
    const result = await callTool(client, 'set_clipboard', { text: 'x' });
    expect(errorOf(result)).toEqual({ kind: 'system_error', message: 'clipboard stream failed' });
    expect(textOf(result)).toMatch(/^system_error: clipboard stream failed/);
  });

  it('fails at once with guidance when no viewer is connected, not at the call timeout', async () => {
    await viewer.close();
    await waitUntil(() => bridge.adminPlane.hub.size === 0);
    const started = performance.now();
    const result = await callTool(client, 'get_display_info');
    const elapsed = performance.now() - started;
    // get_display_info's own deadline is 5 s: answering well before it means nobody waited.
    expect(elapsed).toBeLessThan(2000);
    expect(errorOf(result).kind).toBe('viewer_unavailable');
    expect(errorOf(result).message).toContain(
      `No viewer is connected. Open ${bridge.url} in a browser (and sign in) to let the AI act on the desktop.`,
    );
  });

  it('fails a call at once when the viewer disconnects mid-call', async () => {
    viewer.on('wait_for_screen', 'ignore');
    const pending = callTool(client, 'wait_for_screen', { until: 'changed', timeout_ms: 60_000 });
    await viewer.waitFor((m) => m.type === 'tool_call');
    const started = performance.now();
    await viewer.close();
    const result = await pending;
    expect(performance.now() - started).toBeLessThan(1000);
    expect(errorOf(result).kind).toBe('viewer_unavailable');
    expect(errorOf(result).message).toMatch(/disconnected before answering/);
  });

  it('tells the viewer to drop a call the MCP client cancelled, and fails it as cancelled', async () => {
    viewer.on('wait_for_screen', 'ignore');
    const abort = new AbortController();
    const pending = client.callTool(
      { name: 'wait_for_screen', arguments: { until: 'stable', timeout_ms: 60_000 } },
      undefined,
      { signal: abort.signal },
    );
    const call = await viewer.waitFor((m) => m.type === 'tool_call');
    abort.abort('changed my mind');
    await expect(pending).rejects.toThrow();
    const cancel = await viewer.waitFor((m) => m.type === 'tool_cancel');
    expect(cancel).toMatchObject({ id: (call as { id: string }).id });
    await waitUntil(() => bridge.adminPlane.hub.pendingCalls === 0);
  });

  it('times out a call the viewer never answers, and tells the viewer to drop it', async () => {
    viewer.on('mouse_move', 'ignore');
    const started = performance.now();
    const result = await callTool(client, 'mouse_move', { x: 1, y: 1 });
    const elapsed = performance.now() - started;
    expect(errorOf(result).kind).toBe('timeout');
    expect(elapsed).toBeGreaterThan(4000);
    const cancel = await viewer.waitFor((m) => m.type === 'tool_cancel');
    expect(cancel).toMatchObject({
      type: 'tool_cancel',
      id: viewer.toolCalls('mouse_move')[0]?.id,
    });
  }, 15_000);
});
