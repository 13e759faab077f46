// The AI's mode raise is audited as a question to the person, in the words of every other
// question (audit/decider.ts): denied by the person in charge, named, is told from nobody
// answering within the approval window (the audit row said "Ada's answer, or no answer" for
// both), and matches the approval's own entry; with only the headless viewer to ask, the rule
// refuses it (it read "allowed by the mode"). Real bridge, real MCP client, a SCRIPTED VIEWER
// (the person's window, answering as it sends). The unanswered raise waits the real window
// (APPROVAL_WINDOW_MS, 30 s): the deadline is the bridge's, not the window's.
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { APPROVAL_WINDOW_MS } from '@overlay-companion/protocol';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { callTool, errorOf } from '../mcp/testing/calls.js';
import { connectClient, startTestBridge, type TestBridge } from '../mcp/testing/fixtures.js';
import { ScriptedViewer } from '../mcp/testing/scriptedViewer.js';
import { nextOf } from '../perimeter/testing/viewers.js';

let bridge: TestBridge;
let window: ScriptedViewer;
let client: Client;

beforeAll(async () => {
  bridge = await startTestBridge({ initialMode: 'passive' });
  window = await ScriptedViewer.connect(bridge);
  ({ client } = await connectClient(bridge));
});

afterAll(async () => {
  await client?.close();
  await window?.close();
  await bridge?.close();
});

/** The latest audit entry of `kind` (and `tool`). */
async function latest(kind: 'tool_call' | 'approval', tool?: string) {
  await bridge.access.audit.flush();
  const [entry] = await bridge.access.store.audit.query({ kind, tool, limit: 1 });
  return entry;
}

/** The AI asks to raise the mode to assist; `answer` is the window's, or none. */
async function raise(answer: boolean | 'none') {
  const request = nextOf(window, 'approval_request');
  const raising = callTool(client, 'set_mode', { mode: 'assist' });
  const asked = await request();
  if (answer !== 'none')
    window.send({ type: 'approval', request_id: asked.request_id, approved: answer });
  return raising;
}

it('a raise the person declines: denied by them, by name', async () => {
  const refused = await raise(false);
  expect(errorOf(refused)).toMatchObject({ kind: 'permission_denied' });
  expect(errorOf(refused).message).toMatch(/\(declined\)/);
  expect(await latest('tool_call', 'set_mode')).toMatchObject({
    decision: 'confirm',
    outcome: 'denied_by_person',
    approvedBy: null,
    decidedBy: bridge.admin.displayName,
    decidedByPersonId: bridge.admin.id,
  });
  expect(await latest('approval')).toMatchObject({ outcome: 'declined' });
  expect(bridge.adminPlane.mode.mode).toBe('passive');
});

it(
  'a raise nobody answers: no answer within the window, no one named',
  { timeout: APPROVAL_WINDOW_MS + 30_000 },
  async () => {
    const refused = await raise('none');
    expect(errorOf(refused).message).toMatch(/\(no answer within 30 s\)/);
    expect(await latest('tool_call', 'set_mode')).toMatchObject({
      decision: 'confirm',
      outcome: 'no_answer',
      decidedBy: 'no answer within 30 s',
      decidedByPersonId: null,
    });
    expect(await latest('approval')).toMatchObject({ outcome: 'timeout' });
    expect(bridge.adminPlane.mode.mode).toBe('passive');
  },
);

it('a raise the person approves: approved by them, by name', async () => {
  expect((await raise(true)).isError).toBeFalsy();
  expect(await latest('tool_call', 'set_mode')).toMatchObject({
    decision: 'confirm',
    outcome: 'ok',
    approvedBy: bridge.admin.displayName,
    decidedBy: bridge.admin.displayName,
    decidedByPersonId: bridge.admin.id,
  });
  expect(await latest('approval')).toMatchObject({ outcome: 'approved' });
});

it('a raise with only the headless viewer open: refused by the rule, nobody asked', async () => {
  const headless = await ScriptedViewer.connect(bridge, { headless: true });
  await window.close();
  await headless.waitFor((m) => m.type === 'hello' && m.role === 'control');
  const refused = await callTool(client, 'set_mode', { mode: 'autopilot' });
  expect(errorOf(refused).message).toMatch(/never approved through the MCP client/);
  expect(await latest('tool_call', 'set_mode')).toMatchObject({
    decision: 'deny',
    outcome: 'permission_denied',
    decidedBy: 'the rule that only a person raises the mode, in a window',
    decidedByPersonId: null,
  });
  await headless.close();
});
