// The mode policy as the MCP client meets it: what each mode does to input tools, Stop, mode
// raises and lowerings, and rate limits. Real bridge, real MCP client, SCRIPTED VIEWER.
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { callTool, errorOf, textOf } from './testing/calls.js';
import { connectClient, startTestBridge, type TestBridge } from './testing/fixtures.js';
import { ScriptedViewer } from './testing/scriptedViewer.js';
import { waitUntil } from './testing/wait.js';

const CLICK = { x: 5, y: 6 };
const OK_CLICK = { result: { success: true, was_confirmed: false } };
const OK_TYPE = { result: { success: true, typed_length: 2 } };

describe('mode policy over MCP', () => {
  let bridge: TestBridge;
  let client: Client;
  let viewer: ScriptedViewer;

  beforeAll(async () => {
    bridge = await startTestBridge({
      rateLimits: {
        all: { ratePerSecond: 1000, burst: 1000 },
        input: { ratePerSecond: 1000, burst: 1000 },
      },
    });
    ({ client } = await connectClient(bridge));
    await client.listTools();
  });
  afterAll(async () => {
    await client.close();
    await bridge.close();
  });
  beforeEach(async () => {
    viewer = await ScriptedViewer.connect(bridge);
    viewer.on('click_at', OK_CLICK).on('type_text', OK_TYPE);
  });
  afterEach(async () => {
    expect(viewer.invalid).toEqual([]);
    await viewer.close();
  });

  const setMode = (mode: string, metadata?: Record<string, unknown>): void =>
    bridge.adminPlane.mode.set(mode as 'assist', metadata, 'person');

  it('passive denies input with a clear error and relays nothing', async () => {
    setMode('passive');
    const result = await callTool(client, 'click_at', CLICK);
    expect(errorOf(result).kind).toBe('permission_denied');
    expect(textOf(result)).toMatch(/^permission_denied: click_at is not allowed in passive mode/);
    expect(errorOf(result).message).toMatch(/allowed in assist .*autopilot/);
    expect(errorOf(result).message).toMatch(/change the mode in the viewer/);
    expect((await callTool(client, 'get_clipboard')).isError).toBe(true);
    expect(viewer.toolCalls()).toEqual([]);
  });

  it('passive still allows overlays and screenshots', async () => {
    setMode('passive');
    viewer.on('clear_overlays', { result: { cleared: 0 } });
    expect((await callTool(client, 'clear_overlays')).isError).toBeFalsy();
  });

  it('assist relays input with policy confirm', async () => {
    setMode('assist');
    const result = await callTool(client, 'click_at', CLICK);
    expect(result.isError).toBeFalsy();
    const [call] = viewer.toolCalls('click_at');
    expect(call?.policy).toBe('confirm');
    // The person's approval window is part of the budget.
    expect(call?.deadline_ms).toBeGreaterThanOrEqual(30_000);
  });

  it('a denial in the viewer reaches the client as permission_denied', async () => {
    setMode('assist');
    viewer.on('click_at', {
      error: { kind: 'permission_denied', message: 'The person denied the click.' },
    });
    const result = await callTool(client, 'click_at', CLICK);
    expect(errorOf(result)).toMatchObject({
      kind: 'permission_denied',
      message: 'The person denied the click.',
    });
  });

  it('autopilot relays input with policy allow; require_user_confirmation upgrades it to confirm', async () => {
    setMode('autopilot');
    await callTool(client, 'click_at', CLICK);
    await callTool(client, 'click_at', { ...CLICK, require_user_confirmation: true });
    expect(viewer.toolCalls('click_at').map((c) => c.policy)).toEqual(['allow', 'confirm']);
  });

  it('composing allows typing and the clipboard, confirms pointer actions', async () => {
    setMode('composing');
    viewer.on('set_clipboard', { result: { ok: true } });
    await callTool(client, 'type_text', { text: 'hi' });
    await callTool(client, 'set_clipboard', { text: 'x' });
    await callTool(client, 'click_at', CLICK);
    expect(viewer.toolCalls().map((c) => `${c.name}:${c.policy}`)).toEqual([
      'type_text:allow',
      'set_clipboard:allow',
      'click_at:confirm',
    ]);
  });

  it('custom follows its allow/deny lists and asks for unlisted tools', async () => {
    setMode('custom', { allow: ['type_text'], deny: ['click_at'] });
    expect(errorOf(await callTool(client, 'click_at', CLICK)).message).toMatch(/deny list/);
    await callTool(client, 'type_text', { text: 'hi' });
    viewer.on('mouse_move', { result: { success: true } });
    await callTool(client, 'mouse_move', { x: 1, y: 1 });
    expect(viewer.toolCalls().map((c) => `${c.name}:${c.policy}`)).toEqual([
      'type_text:allow',
      'mouse_move:confirm',
    ]);
  });

  it('a malformed custom policy is stored but denies all input', async () => {
    const { client: ai } = await connectClient(bridge);
    setMode('autopilot');
    // Lowering to custom is a raise (custom can grant anything), so the person approves it here.
    const pending = callTool(ai, 'set_mode', { mode: 'custom', metadata: { allow: 'everything' } });
    const request = await viewer.waitFor((m) => m.type === 'approval_request');
    viewer.send({
      type: 'approval',
      request_id: (request as { request_id: string }).request_id,
      approved: true,
    });
    const set = await pending;
    expect(set.structuredContent).toEqual({ ok: true, active_mode: 'custom' });
    expect(textOf(set)).toMatch(/cannot be read/);
    expect(bridge.adminPlane.mode.snapshot.metadata).toEqual({ allow: 'everything' });
    for (const [tool, args] of [
      ['type_text', { text: 'a' }],
      ['click_at', CLICK],
      ['set_clipboard', { text: 'a' }],
    ] as const) {
      const result = await callTool(ai, tool, args);
      expect(errorOf(result).kind).toBe('permission_denied');
      expect(errorOf(result).message).toMatch(/policy cannot be read/);
    }
    expect(viewer.toolCalls()).toEqual([]);
    await ai.close();
  });

  it('withdraws a waiting input call at once when the person lowers the mode to one that denies it', async () => {
    setMode('assist');
    viewer.on('click_at', 'ignore');
    const pending = callTool(client, 'click_at', CLICK);
    const call = await viewer.waitFor((m) => m.type === 'tool_call');
    viewer.send({ type: 'mode_set', mode: 'passive' });
    const result = await pending;
    expect(errorOf(result).kind).toBe('permission_denied');
    expect(errorOf(result).message).toMatch(
      /withdrawn before it ran: click_at is not allowed in passive mode/,
    );
    const cancel = await viewer.waitFor((m) => m.type === 'tool_cancel');
    expect(cancel).toMatchObject({ id: (call as { id: string }).id });
    // A late approval answer is refused, not applied.
    viewer.send({ type: 'tool_result', id: (call as { id: string }).id, result: OK_CLICK.result });
    await viewer.waitFor((m) => m.type === 'error');
  });

  describe('set_mode', () => {
    it('lowering applies at once, without asking', async () => {
      setMode('autopilot');
      const result = await callTool(client, 'set_mode', { mode: 'assist' });
      expect(result.structuredContent).toEqual({ ok: true, active_mode: 'assist' });
      expect(bridge.adminPlane.mode.mode).toBe('assist');
      expect(viewer.received.some((m) => m.type === 'approval_request')).toBe(false);
      expect(
        await viewer.waitFor((m) => m.type === 'mode_changed' && m.mode === 'assist'),
      ).toBeTruthy();
    });

    it('raising waits for the person and applies on approval', async () => {
      setMode('assist');
      const pending = callTool(client, 'set_mode', { mode: 'autopilot' });
      const request = (await viewer.waitFor((m) => m.type === 'approval_request')) as {
        request_id: string;
        from_mode: string;
        to_mode: string;
      };
      expect(request).toMatchObject({ from_mode: 'assist', to_mode: 'autopilot' });
      expect(bridge.adminPlane.mode.mode).toBe('assist');
      viewer.send({ type: 'approval', request_id: request.request_id, approved: true });
      const result = await pending;
      expect(result.structuredContent).toEqual({ ok: true, active_mode: 'autopilot' });
      expect(bridge.adminPlane.mode.mode).toBe('autopilot');
    });

    it('raising is refused when the person declines, and the mode stays', async () => {
      setMode('passive');
      const pending = callTool(client, 'set_mode', { mode: 'assist' });
      const request = (await viewer.waitFor((m) => m.type === 'approval_request')) as {
        request_id: string;
      };
      viewer.send({ type: 'approval', request_id: request.request_id, approved: false });
      const result = await pending;
      expect(errorOf(result).kind).toBe('permission_denied');
      expect(errorOf(result).message).toMatch(
        /did not approve switching the mode from passive to assist/,
      );
      expect(bridge.adminPlane.mode.mode).toBe('passive');
    });

    it('a window raises the mode only once the person approves it there; lowering applies at once', async () => {
      setMode('passive');
      viewer.send({ type: 'mode_set', mode: 'autopilot' });
      const request = (await viewer.waitFor((m) => m.type === 'approval_request')) as {
        request_id: string;
        requested_by: string;
        to_mode: string;
      };
      expect(request).toMatchObject({ requested_by: 'person', to_mode: 'autopilot' });
      // Not yet: choosing is not confirming.
      expect(bridge.adminPlane.mode.mode).toBe('passive');
      viewer.send({ type: 'approval', request_id: request.request_id, approved: true });
      await viewer.waitFor((m) => m.type === 'mode_changed' && m.mode === 'autopilot');
      expect(bridge.adminPlane.mode.mode).toBe('autopilot');
      viewer.send({ type: 'mode_set', mode: 'assist' });
      await viewer.waitFor((m) => m.type === 'mode_changed' && m.mode === 'assist');
      expect(bridge.adminPlane.mode.mode).toBe('assist');
    });

    it('a declined raise from a window leaves the mode as it was', async () => {
      setMode('assist');
      viewer.send({ type: 'mode_set', mode: 'autopilot' });
      const request = (await viewer.waitFor((m) => m.type === 'approval_request')) as {
        request_id: string;
      };
      viewer.send({ type: 'approval', request_id: request.request_id, approved: false });
      await new Promise((resolve) => setTimeout(resolve, 100));
      expect(bridge.adminPlane.mode.mode).toBe('assist');
      expect(viewer.received.some((m) => m.type === 'mode_changed' && m.mode === 'autopilot')).toBe(
        false,
      );
    });
  });

  describe('Stop', () => {
    it('denies every pending call at once, sets passive, and tells every viewer', async () => {
      setMode('autopilot');
      const mirror = await ScriptedViewer.connect(bridge);
      expect(mirror.hello.role).toBe('mirror');
      viewer.on('wait_for_screen', 'ignore').on('click_at', 'ignore');
      const pending: Promise<CallToolResult>[] = [
        callTool(client, 'wait_for_screen', { until: 'changed', timeout_ms: 60_000 }),
        callTool(client, 'click_at', CLICK),
      ];
      await waitUntil(() => viewer.toolCalls().length === 2);
      const started = performance.now();
      mirror.send({ type: 'stop_pressed' });
      const results = await Promise.all(pending);
      expect(performance.now() - started).toBeLessThan(1000);
      for (const result of results) {
        expect(errorOf(result).kind).toBe('cancelled');
        expect(errorOf(result).message).toMatch(/^Stopped by the person/);
      }
      expect(bridge.adminPlane.mode.mode).toBe('passive');
      for (const v of [viewer, mirror]) {
        await v.waitFor((m) => m.type === 'stop');
        await v.waitFor((m) => m.type === 'mode_changed' && m.mode === 'passive');
      }
      // And input stays denied afterwards.
      expect(errorOf(await callTool(client, 'click_at', CLICK)).kind).toBe('permission_denied');
      await mirror.close();
    });

    it('also denies a pending mode raise', async () => {
      setMode('assist');
      const pending = callTool(client, 'set_mode', { mode: 'autopilot' });
      await viewer.waitFor((m) => m.type === 'approval_request');
      viewer.send({ type: 'stop_pressed' });
      expect(errorOf(await pending).kind).toBe('cancelled');
      expect(bridge.adminPlane.mode.mode).toBe('passive');
    });
  });
});

describe('rate limits', () => {
  it('answers rate_limited with retry_after_ms once the input bucket is empty', async () => {
    const bridge = await startTestBridge({
      initialMode: 'autopilot',
      rateLimits: {
        all: { ratePerSecond: 100, burst: 200 },
        input: { ratePerSecond: 2, burst: 3 },
      },
    });
    const viewer = await ScriptedViewer.connect(bridge);
    viewer.on('mouse_move', { result: { success: true } });
    viewer.on('clear_overlays', { result: { cleared: 0 } });
    const { client } = await connectClient(bridge);
    try {
      for (let i = 0; i < 3; i += 1) {
        expect((await callTool(client, 'mouse_move', { x: i, y: 0 })).isError).toBeFalsy();
      }
      const limited = await callTool(client, 'mouse_move', { x: 9, y: 0 });
      const error = errorOf(limited);
      expect(error.kind).toBe('rate_limited');
      expect(error.retry_after_ms).toBeGreaterThan(0);
      expect(error.retry_after_ms).toBeLessThanOrEqual(500);
      expect(textOf(limited)).toMatch(/^rate_limited: .*retry_after_ms/);
      // Other tools have their own (larger) budget.
      expect((await callTool(client, 'clear_overlays')).isError).toBeFalsy();
      // After waiting as told, input works again.
      await new Promise((r) => setTimeout(r, error.retry_after_ms));
      expect((await callTool(client, 'mouse_move', { x: 1, y: 1 })).isError).toBeFalsy();
      expect(viewer.toolCalls('mouse_move')).toHaveLength(4);
    } finally {
      await client.close();
      await viewer.close();
      await bridge.close();
    }
  });
});
