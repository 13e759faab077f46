// Headless approvals: when the control viewer is headless, confirm-policy calls are asked of the
// MCP client by elicitation — only when the person turned that on and the client declared the
// capability — and recorded as the client's answer (was_confirmed stays false); a mode raise is
// never approved that way; a window of the person's takes the control role from the headless
// viewer, so the person is asked there. Real bridge, real MCP clients, SCRIPTED VIEWERS.
import { ElicitRequestSchema, type ElicitResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { callTool, errorOf } from './testing/calls.js';
import { connectClient, startTestBridge, type TestBridge } from './testing/fixtures.js';
import { ScriptedViewer } from './testing/scriptedViewer.js';

describe('approvals with a headless viewer', () => {
  let bridge: TestBridge;
  let viewer: ScriptedViewer;
  beforeAll(async () => {
    bridge = await startTestBridge();
  });
  afterAll(async () => {
    await bridge.close();
  });
  beforeEach(async () => {
    bridge.adminPlane.mode.set('assist', undefined, 'person');
    await bridge.desktopControl.planes.updatePermissions(bridge.admin.id, {
      approvals_through_client: true,
    });
    viewer = await ScriptedViewer.connect(bridge, { headless: true });
    viewer.on('click_at', { result: { success: true, was_confirmed: false } });
  });
  afterEach(async () => {
    expect(viewer.invalid).toEqual([]);
    await viewer.close();
  });

  async function elicitingClient(answer: ElicitResult) {
    const { client } = await connectClient(bridge, { capabilities: { elicitation: { form: {} } } });
    const asked: string[] = [];
    client.setRequestHandler(ElicitRequestSchema, (request) => {
      asked.push(request.params.message);
      return answer;
    });
    return { client, asked };
  }

  it('asks the client by elicitation and relays with allow when approved', async () => {
    const { client, asked } = await elicitingClient({
      action: 'accept',
      content: { approve: true },
    });
    const result = await callTool(client, 'click_at', { x: 3, y: 4 });
    expect(result.isError).toBeFalsy();
    // The client answered, not the person: not "confirmed", and the audit names the client.
    expect(result.structuredContent).toMatchObject({ success: true, was_confirmed: false });
    expect(asked).toHaveLength(1);
    expect(asked[0]).toMatch(/click_at/);
    expect(viewer.toolCalls('click_at').map((c) => c.policy)).toEqual(['allow']);
    await bridge.access.audit.flush();
    const [entry] = await bridge.access.store.audit.query({ tool: 'click_at', limit: 1 });
    expect(entry?.approvedBy).toMatch(/^the MCP client "bridge-test" \(test token\), for /);
    await client.close();
  });

  it('never asks the client while the person has not turned that on', async () => {
    await bridge.desktopControl.planes.updatePermissions(bridge.admin.id, {
      approvals_through_client: false,
    });
    const { client, asked } = await elicitingClient({
      action: 'accept',
      content: { approve: true },
    });
    const result = await callTool(client, 'click_at', { x: 3, y: 4 });
    expect(errorOf(result).kind).toBe('permission_denied');
    expect(errorOf(result).message).toMatch(/Let my AI client ask me for approvals/);
    expect(asked).toEqual([]);
    expect(viewer.toolCalls()).toEqual([]);
    await client.close();
  });

  it("asks in the person's window once one is open, not the client", async () => {
    const { client, asked } = await elicitingClient({
      action: 'accept',
      content: { approve: true },
    });
    const window = await ScriptedViewer.connect(bridge);
    try {
      expect(window.hello.role).toBe('control');
      await viewer.waitFor((m) => m.type === 'hello' && m.role === 'mirror');
      window.on('click_at', { result: { success: true, was_confirmed: true } });
      const result = await callTool(client, 'click_at', { x: 5, y: 6 });
      expect(result.structuredContent).toMatchObject({ was_confirmed: true });
      expect(window.toolCalls('click_at').map((c) => c.policy)).toEqual(['confirm']);
      expect(asked).toEqual([]);
      expect(viewer.toolCalls()).toEqual([]);
    } finally {
      await window.close();
      await client.close();
    }
    // The headless viewer controls again once the person's window is gone.
    await viewer.waitFor((m) => m.type === 'hello' && m.role === 'control');
  });

  it('denies when the client declines, or accepts without ticking approve', async () => {
    for (const answer of [
      { action: 'decline' },
      { action: 'accept', content: { approve: false } },
    ] as ElicitResult[]) {
      const { client } = await elicitingClient(answer);
      const result = await callTool(client, 'click_at', { x: 3, y: 4 });
      expect(errorOf(result).kind).toBe('permission_denied');
      expect(errorOf(result).message).toMatch(/declined click_at/);
      await client.close();
    }
    expect(viewer.toolCalls()).toEqual([]);
  });

  it('denies with a clear message when the client cannot elicit', async () => {
    const { client } = await connectClient(bridge);
    const result = await callTool(client, 'click_at', { x: 3, y: 4 });
    expect(errorOf(result).kind).toBe('permission_denied');
    expect(errorOf(result).message).toMatch(/headless.*did not declare the elicitation capability/);
    expect(viewer.toolCalls()).toEqual([]);
    await client.close();
  });

  it('never raises the mode through the client, whatever it answers', async () => {
    const yes = await elicitingClient({ action: 'accept', content: { approve: true } });
    const refused = errorOf(await callTool(yes.client, 'set_mode', { mode: 'autopilot' }));
    expect(refused.kind).toBe('permission_denied');
    expect(refused.message).toMatch(/never approved through the MCP client/);
    expect(yes.asked).toEqual([]);
    expect(bridge.adminPlane.mode.mode).toBe('assist');
    await yes.client.close();
  });

  it('does not let the headless viewer raise the mode itself (it may lower it)', async () => {
    viewer.send({ type: 'mode_set', mode: 'autopilot' });
    const error = await viewer.waitFor((m) => m.type === 'error');
    expect((error as { message: string }).message).toMatch(/headless viewer cannot raise the mode/);
    expect(bridge.adminPlane.mode.mode).toBe('assist');
    viewer.send({ type: 'mode_set', mode: 'passive' });
    await viewer.waitFor((m) => m.type === 'mode_changed' && m.mode === 'passive');
  });

  it('does not elicit for calls the mode allows', async () => {
    bridge.adminPlane.mode.set('autopilot', undefined, 'person');
    const { client, asked } = await elicitingClient({ action: 'decline' });
    expect((await callTool(client, 'click_at', { x: 1, y: 1 })).isError).toBeFalsy();
    expect(asked).toEqual([]);
    await client.close();
  });
});
