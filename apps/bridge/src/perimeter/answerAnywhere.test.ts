// Answer anywhere (P9 item 2): any window of the person in charge answers an approval its
// control window lists (approval_answer, relayed to the control window; the first answer wins),
// and may make itself the control window (take_control). Refused, changing nothing: an answer
// from a watcher's window (bob, with a control grant) or from the headless viewer, an answer for
// a request the control window does not list (unknown or already answered), and take_control
// from anyone but the person in charge. Real bridge, real MCP client, SCRIPTED VIEWERS.
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callTool, errorOf } from '../mcp/testing/calls.js';
import { connectClient, startTestBridge, type TestBridge } from '../mcp/testing/fixtures.js';
import { ScriptedViewer } from '../mcp/testing/scriptedViewer.js';
import { addPerson, type OtherPerson } from './testing/people.js';
import { nextOf, ofType, settle } from './testing/viewers.js';

let bridge: TestBridge;
let bob: OtherPerson;
/** The admin's first window (control), their second (a mirror: a phone), and bob's window. */
let control: ScriptedViewer;
let phone: ScriptedViewer;
let bobViewer: ScriptedViewer;
let client: Client;

beforeAll(async () => {
  bridge = await startTestBridge();
  bob = await addPerson(bridge.session, 'bob', { grant: 'control' });
  bridge.desktopControl.directory.invalidate();
  control = await ScriptedViewer.connect(bridge);
  phone = await ScriptedViewer.connect(bridge);
  bobViewer = await ScriptedViewer.connect(bob.session);
  ({ client } = await connectClient(bridge));
});

afterAll(async () => {
  await client?.close();
  for (const viewer of [control, phone, bobViewer]) await viewer?.close();
  await bridge.close();
});

/** Sends `message` from `viewer` and returns the error the bridge answered it with. */
async function refused(viewer: ScriptedViewer, message: unknown): Promise<string> {
  const error = nextOf(viewer, 'error');
  viewer.send(message);
  return (await error()).message;
}

/**
 * Starts an AI click the control window asks the person about: the control window lists it as
 * `requestId` and holds the call until `answer` settles it.
 */
async function askedClick(requestId: string) {
  let answer = (_approved: boolean): void => undefined;
  const answered = new Promise<boolean>((resolve) => (answer = resolve));
  const asked = nextOf(control, 'tool_call');
  control.on('click_at', async (call) => {
    const approved = await answered;
    control.send({ type: 'approvals_waiting', requests: [] });
    return approved
      ? { result: { success: true, was_confirmed: true } }
      : { error: { kind: 'permission_denied', message: `The person declined ${call.name}.` } };
  });
  const call = callTool(client, 'click_at', { x: 40, y: 50 });
  expect((await asked()).policy).toBe('confirm');
  const listed = nextOf(phone, 'approvals_waiting');
  control.send({
    type: 'approvals_waiting',
    requests: [
      { title: 'Click with the left button', deadline_in_ms: 29_000, request_id: requestId },
    ],
  });
  expect((await listed()).requests[0]?.request_id).toBe(requestId);
  return { call, answer };
}

describe('answer anywhere', () => {
  it('starts with the first window of the admin as control, the others as mirrors', () => {
    expect(control.hello.role).toBe('control');
    expect(phone.hello.role).toBe('mirror');
    expect(bobViewer.hello.role).toBe('mirror');
  });

  it("relays the answer of the person's mirror to the control window; a second answer is refused", async () => {
    const { call, answer } = await askedClick('confirm_abc_1');
    const relayed = nextOf(control, 'approval_answer');
    const closedOnBob = nextOf(bobViewer, 'approvals_waiting');
    phone.send({ type: 'approval_answer', request_id: 'confirm_abc_1', approved: true });
    const got = await relayed();
    expect(got).toEqual({ type: 'approval_answer', request_id: 'confirm_abc_1', approved: true });
    // Every other window closes the request at once (the bridge's copy drops it).
    expect((await closedOnBob()).requests).toEqual([]);
    // The first answer won: another (even the same window's) answer is refused.
    expect(
      await refused(phone, {
        type: 'approval_answer',
        request_id: 'confirm_abc_1',
        approved: false,
      }),
    ).toMatch(/no approval confirm_abc_1 is waiting/);
    answer(got.approved);
    expect((await call).isError).toBeFalsy();
    expect(ofType(control, 'approval_answer')).toHaveLength(1);
  });

  it("refuses a watcher's forged answer and an answer for an unknown request, changing nothing", async () => {
    const { call, answer } = await askedClick('confirm_abc_2');
    // Bob watches the same desktop and is told the request id: guessing it is not the defence.
    expect(
      await refused(bobViewer, {
        type: 'approval_answer',
        request_id: 'confirm_abc_2',
        approved: true,
      }),
    ).toMatch(/only a window of the person in charge/);
    expect(
      await refused(phone, {
        type: 'approval_answer',
        request_id: 'confirm_zzz_9',
        approved: true,
      }),
    ).toMatch(/no approval confirm_zzz_9 is waiting.*nothing changed/);
    const headless = await ScriptedViewer.connect(bridge, { headless: true });
    expect(
      await refused(headless, {
        type: 'approval_answer',
        request_id: 'confirm_abc_2',
        approved: true,
      }),
    ).toMatch(/headless viewer/);
    await headless.close();
    await settle(control);
    expect(ofType(control, 'approval_answer').map((m) => m.request_id)).not.toContain(
      'confirm_abc_2',
    );
    expect(bridge.adminPlane.hub.approvalsWaitingCount).toBe(1);
    // The request still waits: the person's own answer (here a Deny from the phone) settles it.
    const relayed = nextOf(control, 'approval_answer');
    phone.send({ type: 'approval_answer', request_id: 'confirm_abc_2', approved: false });
    answer((await relayed()).approved);
    expect(errorOf(await call).kind).toBe('permission_denied');
  });

  it('refuses take_control from a watcher; the mirror of the person in charge takes the role', async () => {
    const hub = bridge.adminPlane.hub;
    expect(await refused(bobViewer, { type: 'take_control' })).toMatch(
      /only a window of the person in charge/,
    );
    expect(hub.roleOf(control.hello.viewer_id)).toBe('control');

    // A call the old control window holds fails at once when the role moves.
    const asked = nextOf(control, 'tool_call');
    control.on('click_at', 'ignore');
    const pending = callTool(client, 'click_at', { x: 1, y: 2 });
    await asked();
    const phoneHello = nextOf(phone, 'hello');
    const controlHello = nextOf(control, 'hello');
    const overlays = nextOf(phone, 'sync_state');
    phone.send({ type: 'take_control' });
    expect((await phoneHello()).role).toBe('control');
    expect((await controlHello()).role).toBe('mirror');
    // The new control window is handed the bridge's overlay store with its hello.
    await overlays();
    const failed = errorOf(await pending);
    expect(failed.kind).toBe('viewer_unavailable');
    expect(failed.message).toMatch(/made another of their windows the control window/);
    expect(hub.roleOf(phone.hello.viewer_id)).toBe('control');
    expect(hub.roleOf(control.hello.viewer_id)).toBe('mirror');

    // The next call goes to the new control window.
    phone.on('click_at', { result: { success: true, was_confirmed: true } });
    const next = nextOf(phone, 'tool_call');
    const click = callTool(client, 'click_at', { x: 3, y: 4 });
    await next();
    expect((await click).isError).toBeFalsy();
    for (const viewer of [control, phone, bobViewer]) expect(viewer.invalid).toEqual([]);
  });
});
