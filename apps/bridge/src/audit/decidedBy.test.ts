// The audit names who or what decided every AI tool call (ARCHITECTURE: "The audit records who
// or what decided"), on every path: allowed by the mode, approved and denied by the person in
// charge (by id and name — a denial named nobody before), refused by a toggle, no answer in time, Stop pressed by
// another person with access while the call waited, allowed by a standing permission (and who
// gave it), refused by the mode, a mode raise the person approved, and no window to ask in. Real
// bridge, real MCP client, SCRIPTED VIEWERS (the person's answers as their window sends them).
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { PERMISSION_LABELS, type ToolCallMessage } from '@overlay-companion/protocol';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { callTool } from '../mcp/testing/calls.js';
import {
  connectClient,
  screenshotResult,
  startTestBridge,
  type TestBridge,
} from '../mcp/testing/fixtures.js';
import { ScriptedViewer } from '../mcp/testing/scriptedViewer.js';
import { waitUntil } from '../mcp/testing/wait.js';
import { addPerson, type OtherPerson } from '../perimeter/testing/people.js';
import { nextOf } from '../perimeter/testing/viewers.js';

let bridge: TestBridge;
let bob: OtherPerson;
let control: ScriptedViewer;
let bobViewer: ScriptedViewer;
let client: Client;

beforeAll(async () => {
  bridge = await startTestBridge();
  bob = await addPerson(bridge.session, 'bob', { grant: 'control', displayName: 'Bob' });
  bridge.desktopControl.directory.invalidate();
  control = await ScriptedViewer.connect(bridge);
  bobViewer = await ScriptedViewer.connect(bob.session);
  ({ client } = await connectClient(bridge));
});

afterAll(async () => {
  await client?.close();
  await bobViewer?.close();
  await control?.close();
  await bridge?.close();
});

/** The audit entry of the latest call of `tool`. */
async function lastCall(tool: string) {
  await bridge.access.audit.flush();
  const [entry] = await bridge.access.store.audit.query({ kind: 'tool_call', tool, limit: 1 });
  return entry;
}

/** The control window answers the next click_at as the viewer does when the question ended. */
function answerClick(answer: (call: ToolCallMessage) => void): void {
  control.on('click_at', (call) => {
    answer(call);
    return 'ignore';
  });
}

const asked = (call: ToolCallMessage, how: 'denied' | 'timeout') =>
  control.send({
    type: 'tool_error',
    id: call.id,
    kind: 'permission_denied',
    message: how === 'denied' ? 'The person denied click_at.' : 'No answer in 30 s.',
    asked: how,
  });

it('names who or what decided each call, a person by id and name', async () => {
  const admin = { id: bridge.admin.id, name: bridge.admin.displayName };
  bridge.adminPlane.mode.set('assist', undefined, 'person');

  control.on('take_screenshot', { result: screenshotResult() });
  await callTool(client, 'take_screenshot', {});
  expect(await lastCall('take_screenshot')).toMatchObject({
    decision: 'allow',
    decidedBy: 'the mode assist',
    decidedByPersonId: null,
  });

  // A toggle that is off (reading the clipboard starts off) refuses without asking anyone.
  await callTool(client, 'get_clipboard', {});
  expect(await lastCall('get_clipboard')).toMatchObject({
    decision: 'deny',
    decidedBy: `the toggle “${PERMISSION_LABELS.clipboard_read}” (off)`,
    decidedByPersonId: null,
  });

  control.on('click_at', { result: { success: true, was_confirmed: true } });
  await callTool(client, 'click_at', { x: 1, y: 1 });
  expect(await lastCall('click_at')).toMatchObject({
    decision: 'confirm',
    outcome: 'ok',
    approvedBy: admin.name,
    decidedBy: admin.name,
    decidedByPersonId: admin.id,
  });

  // Denied by the person in charge: who denied is on the entry.
  answerClick((call) => asked(call, 'denied'));
  expect((await callTool(client, 'click_at', { x: 2, y: 2 })).isError).toBe(true);
  expect(await lastCall('click_at')).toMatchObject({
    decision: 'confirm',
    outcome: 'denied_by_person',
    approvedBy: null,
    decidedBy: admin.name,
    decidedByPersonId: admin.id,
  });

  answerClick((call) => asked(call, 'timeout'));
  await callTool(client, 'click_at', { x: 3, y: 3 });
  expect(await lastCall('click_at')).toMatchObject({
    outcome: 'no_answer',
    decidedBy: 'no answer within 30 s',
    decidedByPersonId: null,
  });

  // A standing permission allows the next call: it and the person who gave it are named.
  control.on('click_at', (call) => {
    if (call.policy === 'confirm')
      control.send({ type: 'standing_grant', call_id: call.id, minutes: 5 });
    return { result: { success: true, was_confirmed: call.policy === 'confirm' } };
  });
  await callTool(client, 'click_at', { x: 4, y: 4 });
  await callTool(client, 'click_at', { x: 5, y: 5 });
  expect(await lastCall('click_at')).toMatchObject({
    decision: 'standing',
    decidedBy: `standing permission 1 (click_at for bridge-test, given by ${admin.name})`,
    decidedByPersonId: admin.id,
  });

  // Stop, pressed in Bob's window while the call waited for the person: Bob decided it (the
  // hub's rejection used to read 'cancelled', naming nobody).
  answerClick(() => bobViewer.send({ type: 'stop_pressed' }));
  const stopped = await callTool(client, 'click_at', {
    x: 6,
    y: 6,
    require_user_confirmation: true,
  });
  expect(stopped.isError).toBe(true);
  expect(await lastCall('click_at')).toMatchObject({
    decision: 'confirm',
    outcome: 'stopped',
    decidedBy: 'Stop, pressed by Bob',
    decidedByPersonId: bob.person.id,
  });

  // Stop set passive: refused by the mode, no one asked.
  await callTool(client, 'click_at', { x: 7, y: 7 });
  expect(await lastCall('click_at')).toMatchObject({
    decision: 'deny',
    outcome: 'permission_denied',
    decidedBy: 'the mode passive',
    decidedByPersonId: null,
  });

  // The AI asks to raise the mode; the person approves in their window.
  const request = nextOf(control, 'approval_request');
  const raised = callTool(client, 'set_mode', { mode: 'assist' });
  control.send({ type: 'approval', request_id: (await request()).request_id, approved: true });
  expect((await raised).isError).toBeFalsy();
  expect(await lastCall('set_mode')).toMatchObject({
    decidedBy: admin.name,
    decidedByPersonId: admin.id,
  });

  // Nobody's window open to ask in: denied, and the audit says so.
  await control.close();
  await bobViewer.close();
  await waitUntil(() => bridge.adminPlane.hub.control === undefined);
  expect((await callTool(client, 'click_at', { x: 8, y: 8 })).isError).toBe(true);
  expect(await lastCall('click_at')).toMatchObject({
    decision: 'confirm',
    outcome: 'viewer_unavailable',
    decidedBy: 'no viewer window open to ask in',
    decidedByPersonId: null,
  });
});
