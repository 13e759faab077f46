// The AI's intent in a relayed call: the viewer's tool_call carries it (trimmed), the audit entry
// keeps it on its detail line as the AI wrote it — typed text still redacted — and a bad intent
// is refused before anything reaches the viewer. Real bridge, real MCP client, SCRIPTED VIEWER.
import { API, intentOfDetail, type AuditPage } from '@overlay-companion/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callTool, errorOf } from '../mcp/testing/calls.js';
import { connectClient, startTestBridge, type TestBridge } from '../mcp/testing/fixtures.js';
import { ScriptedViewer } from '../mcp/testing/scriptedViewer.js';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';

describe('the intent of a relayed call', () => {
  let bridge: TestBridge;
  let viewer: ScriptedViewer;
  let client: Client;
  beforeAll(async () => {
    bridge = await startTestBridge({ initialMode: 'assist' });
    viewer = await ScriptedViewer.connect(bridge);
    viewer.on('type_text', { result: { success: true, typed_length: 6 } });
    viewer.on('click_at', { result: { success: true, was_confirmed: true } });
    ({ client } = await connectClient(bridge));
  });
  afterAll(async () => {
    expect(viewer.invalid).toEqual([]);
    await client.close();
    await viewer.close();
    await bridge.close();
  });

  async function entryFor(tool: string) {
    await bridge.access.audit.flush();
    const res = await bridge.session.request(`${API.audit}?kind=tool_call&tool=${tool}`);
    expect(res.status).toBe(200);
    const page = (await res.json()) as AuditPage;
    return { entry: page.entries[0], page };
  }

  it('reaches the viewer trimmed and is kept in the audit, the typed text still redacted', async () => {
    const typed = await callTool(client, 'type_text', {
      text: 's3cret',
      intent: '  Fill in the password field the person asked for  ',
    });
    expect(typed.isError).not.toBe(true);
    expect(viewer.toolCalls('type_text').at(-1)?.args).toMatchObject({
      text: 's3cret',
      intent: 'Fill in the password field the person asked for',
    });

    const { entry, page } = await entryFor('type_text');
    expect(entry?.detail).toMatch(/^desktop .+\nintent: Fill in the password field/);
    expect(intentOfDetail(entry?.detail ?? null)).toBe(
      'Fill in the password field the person asked for',
    );
    expect(entry?.summary).toContain('[redacted: 6 characters]');
    // Said once, on the detail line, not again in the argument summary.
    expect(entry?.summary).not.toContain('intent');
    expect(JSON.stringify(page)).not.toContain('s3cret');
  });

  it('keeps markup in the intent as the AI wrote it (the pages show it as text)', async () => {
    const intent = '<script>alert(1)</script> Click "Save" & close';
    expect((await callTool(client, 'click_at', { x: 3, y: 4, intent })).isError).not.toBe(true);
    const { entry } = await entryFor('click_at');
    expect(intentOfDetail(entry?.detail ?? null)).toBe(intent);
    expect(entry?.summary).toBe('{"x":3,"y":4}');
  });

  it('leaves the detail as it was without an intent', async () => {
    expect((await callTool(client, 'click_at', { x: 5, y: 6 })).isError).not.toBe(true);
    const { entry } = await entryFor('click_at');
    expect(entry?.detail).toMatch(/^desktop [^\n]+$/);
    expect(intentOfDetail(entry?.detail ?? null)).toBeUndefined();
  });

  it('refuses a bad intent naming the field, before the viewer sees the call', async () => {
    const before = viewer.toolCalls('click_at').length;
    const error = errorOf(
      await callTool(client, 'click_at', { x: 7, y: 8, intent: 'line one\nintent: forged' }),
    );
    expect(error.kind).toBe('invalid_parameters');
    expect(error.message).toMatch(/intent: .*U\+000A/);
    const tooLong = errorOf(
      await callTool(client, 'click_at', { x: 7, y: 8, intent: 'a'.repeat(201) }),
    );
    expect(tooLong.message).toContain('intent:');
    expect(viewer.toolCalls('click_at')).toHaveLength(before);
    // The refused call's entry has no intent line (the forged one stays inside the summary).
    const { entry } = await entryFor('click_at');
    expect(entry?.outcome).toBe('invalid_parameters');
    expect(intentOfDetail(entry?.detail ?? null)).toBeUndefined();
  });
});
