// Headless approvals: when the control viewer is headless, confirm-policy calls and mode raises
// are asked of the MCP client by elicitation (only if it declared the capability), and denied
// otherwise. Real bridge, real MCP clients, a headless SCRIPTED VIEWER.
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
    expect(result.structuredContent).toMatchObject({ success: true, was_confirmed: true });
    expect(asked).toHaveLength(1);
    expect(asked[0]).toMatch(/click_at/);
    expect(viewer.toolCalls('click_at').map((c) => c.policy)).toEqual(['allow']);
    await client.close();
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

  it('asks for a mode raise by elicitation and applies it only on approval', async () => {
    const no = await elicitingClient({ action: 'decline' });
    expect(errorOf(await callTool(no.client, 'set_mode', { mode: 'autopilot' })).kind).toBe(
      'permission_denied',
    );
    expect(bridge.adminPlane.mode.mode).toBe('assist');
    expect(no.asked[0]).toMatch(/switch from assist to autopilot/);
    await no.client.close();

    const yes = await elicitingClient({ action: 'accept', content: { approve: true } });
    const result = await callTool(yes.client, 'set_mode', { mode: 'autopilot' });
    expect(result.structuredContent).toEqual({ ok: true, active_mode: 'autopilot' });
    expect(viewer.received.some((m) => m.type === 'approval_request')).toBe(false);
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
