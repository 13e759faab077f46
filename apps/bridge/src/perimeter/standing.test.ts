// Standing permissions kept by the bridge (P9 item 1): made only by the person's answer to a
// question their control window is really asking (standing_grant names the waiting call), shown
// in every window, used by the bridge (the next call arrives as policy allow with standing_id,
// asked of nobody), audited as such (which permission, who gave it, until when), surviving the
// control window closing and a reload, ended by Stop in every window. Refused, changing nothing:
// a grant for a call that does not wait at that window, from a mirror, from another person's
// window, for a call the AI asked to have confirmed, and revokes from anyone but the person in
// charge. Background captures ask the same policy and a refused one is audited. Real bridge,
// real MCP client, SCRIPTED VIEWERS.
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callTool } from '../mcp/testing/calls.js';
import {
  connectClient,
  screenshotResult,
  startTestBridge,
  type TestBridge,
} from '../mcp/testing/fixtures.js';
import { ScriptedViewer } from '../mcp/testing/scriptedViewer.js';
import { waitUntil } from '../mcp/testing/wait.js';
import { addPerson, type OtherPerson } from './testing/people.js';
import { nextOf, ofType, settle } from './testing/viewers.js';

let bridge: TestBridge;
let bob: OtherPerson;
let control: ScriptedViewer;
let phone: ScriptedViewer;
let bobViewer: ScriptedViewer;
let client: Client;
const windows: ScriptedViewer[] = [];

beforeAll(async () => {
  bridge = await startTestBridge();
  bob = await addPerson(bridge.session, 'bob', { grant: 'control' });
  bridge.desktopControl.directory.invalidate();
  control = await open();
  phone = await open();
  bobViewer = await ScriptedViewer.connect(bob.session);
  windows.push(bobViewer);
  ({ client } = await connectClient(bridge));
});

afterAll(async () => {
  await client?.close();
  for (const viewer of windows) await viewer.close();
  await bridge.close();
});

async function open(): Promise<ScriptedViewer> {
  const viewer = await ScriptedViewer.connect(bridge);
  windows.push(viewer);
  return viewer;
}

/** Every click_at at `viewer` succeeds; one asked of the person answers "allow for 15 min". */
function answerWithStanding(viewer: ScriptedViewer, minutes: 5 | 15 | 60 | null = 15) {
  viewer.on('click_at', (call) => {
    if (call.policy === 'confirm')
      viewer.send({ type: 'standing_grant', call_id: call.id, minutes });
    return { result: { success: true, was_confirmed: call.policy === 'confirm' } };
  });
}

async function auditEntries(kind: 'tool_call' | 'standing_permission') {
  await bridge.access.audit.flush();
  return bridge.access.store.audit.query({ kind, limit: 50 });
}

/** The latest standing_permissions `viewer` heard. */
function standingAt(viewer: ScriptedViewer) {
  return ofType(viewer, 'standing_permissions').at(-1)?.permissions;
}

describe('standing permissions kept by the bridge', () => {
  it('are made from the answer, shown in every window, and allow the next call unasked', async () => {
    answerWithStanding(control);
    const listed = nextOf(phone, 'standing_permissions');
    const first = await callTool(client, 'click_at', { x: 10, y: 20 });
    expect(first.isError).toBeFalsy();
    const [permission] = (await listed()).permissions;
    expect(permission).toMatchObject({
      number: 1,
      tool: 'click_at',
      client: { name: 'bridge-test' },
      granted_by: bridge.admin.displayName,
    });
    expect(permission?.expires_in_ms).toBeGreaterThan(14 * 60_000);
    expect(standingAt(bobViewer)).toEqual([permission]);

    const second = await callTool(client, 'click_at', { x: 30, y: 40 });
    expect(second.isError).toBeFalsy();
    const calls = control.toolCalls('click_at');
    expect(calls.map((c) => c.policy)).toEqual(['confirm', 'allow']);
    expect(calls[1]?.standing_id).toBe(permission?.id);
    // The AI is told nobody confirmed it.
    expect((second.structuredContent as { was_confirmed: boolean }).was_confirmed).toBe(false);

    const [allowed, asked] = await auditEntries('tool_call');
    expect(asked).toMatchObject({
      decision: 'confirm',
      approvedBy: bridge.admin.displayName,
      outcome: 'ok',
    });
    expect(allowed).toMatchObject({ decision: 'standing', approvedBy: null, outcome: 'ok' });
    expect(allowed?.detail).toContain(
      `allowed by standing permission 1 (click_at for bridge-test, given by ${bridge.admin.displayName})`,
    );
    const [given] = await auditEntries('standing_permission');
    expect(given).toMatchObject({ actor: 'person', personId: bridge.admin.id, outcome: 'granted' });
    expect(given?.detail).toMatch(/standing permission 1 .*: given, until 20\d\d-.*Z, on /);
  });

  it('never allows what the AI asked to have confirmed, nor another tool', async () => {
    control.on('mouse_move', { result: { success: true } });
    await callTool(client, 'click_at', { x: 1, y: 2, require_user_confirmation: true });
    await callTool(client, 'mouse_move', { x: 1, y: 2 });
    expect(control.toolCalls('click_at').at(-1)?.policy).toBe('confirm');
    expect(control.toolCalls('mouse_move').at(-1)?.policy).toBe('confirm');
  });

  it('survive the control window closing and a reload', async () => {
    const promoted = nextOf(phone, 'hello');
    await control.close();
    expect((await promoted()).role).toBe('control');
    answerWithStanding(phone);
    const reloaded = await open();
    expect(standingAt(reloaded)).toHaveLength(1);
    await callTool(client, 'click_at', { x: 5, y: 6 });
    const call = phone.toolCalls('click_at').at(-1);
    expect(call?.policy).toBe('allow');
    expect(call?.standing_id).toBe(standingAt(reloaded)?.[0]?.id);
    control = reloaded; // a mirror now, closed with the rest
  });

  it('refuse a grant that answers no question really asked at that window', async () => {
    const refused = async (viewer: ScriptedViewer, message: unknown): Promise<string> => {
      const error = nextOf(viewer, 'error');
      viewer.send(message);
      return (await error()).message;
    };
    // A call id nobody is asking about.
    expect(
      await refused(phone, { type: 'standing_grant', call_id: 'call_1_deadbeef', minutes: 60 }),
    ).toMatch(/no such call waits at this window.*Nothing was allowed/);
    // A question the control window holds, granted from elsewhere: a mirror of the same person,
    // the other person's window.
    let release = (): void => undefined;
    const held = new Promise<void>((resolve) => (release = resolve));
    const asked = nextOf(phone, 'tool_call');
    phone.on('drag', async () => {
      await held;
      return { result: { success: true } };
    });
    const pending = callTool(client, 'drag', { from: { x: 1, y: 1 }, to: { x: 9, y: 9 } });
    const call = await asked();
    expect(call.policy).toBe('confirm');
    const grant = { type: 'standing_grant', call_id: call.id, minutes: 60 };
    expect(await refused(control, grant)).toMatch(/no such call waits at this window/);
    expect(await refused(bobViewer, grant)).toMatch(/only a window of the person in charge/);
    // A duration the panel never offers.
    expect(await refused(phone, { ...grant, minutes: 600 })).toMatch(/minutes/);
    release();
    await pending;
    // The AI itself asked to be confirmed: its answer cannot be turned into a permission.
    const ownRefused = nextOf(phone, 'error');
    answerWithStanding(phone, 5);
    await callTool(client, 'click_at', { x: 3, y: 3, require_user_confirmation: true });
    expect((await ownRefused()).message).toMatch(/require_user_confirmation/);
    await settle(phone);
    expect(standingAt(phone)?.map((p) => p.tool)).toEqual(['click_at']);
    // Revokes: only the person in charge.
    const id = standingAt(phone)?.[0]?.id ?? '';
    expect(await refused(bobViewer, { type: 'standing_revoke', id })).toMatch(
      /only a window of the person in charge/,
    );
    expect(await refused(phone, { type: 'standing_revoke', id: 'standing_999' })).toMatch(
      /already ended/,
    );
    expect(standingAt(phone)).toHaveLength(1);
  });

  it('are ended by Stop in every window, and the next call is asked again', async () => {
    const cleared = nextOf(bobViewer, 'standing_permissions');
    // Stop from any window with access: here the watcher's.
    bobViewer.send({ type: 'stop_pressed' });
    expect((await cleared()).permissions).toEqual([]);
    await waitUntil(() => standingAt(phone)?.length === 0 && standingAt(control)?.length === 0);
    const ended = (await auditEntries('standing_permission')).find((e) => e.outcome === 'ended');
    expect(ended?.detail).toMatch(/standing permission 1 .*ended \(Stop was pressed\)/);
    bridge.adminPlane.mode.set('assist', undefined, 'person');
    phone.on('click_at', { result: { success: true, was_confirmed: true } });
    await callTool(client, 'click_at', { x: 7, y: 8 });
    expect(phone.toolCalls('click_at').at(-1)?.policy).toBe('confirm');
  });

  it('end when revoked from any window of the person', async () => {
    answerWithStanding(phone, 5);
    await callTool(client, 'click_at', { x: 1, y: 1 });
    await waitUntil(() => standingAt(control)?.length === 1);
    const id = standingAt(control)?.[0]?.id ?? '';
    const cleared = nextOf(phone, 'standing_permissions');
    control.send({ type: 'standing_revoke', id }); // a mirror of the person in charge
    expect((await cleared()).permissions).toEqual([]);
    const ended = (await auditEntries('standing_permission')).find((e) =>
      e.detail?.includes('revoked by the person'),
    );
    expect(ended?.personId).toBe(bridge.admin.id);
  });
});

describe('background captures ask the same policy', () => {
  it('refuses a capture with screenshots turned off, and audits it once', async () => {
    phone.on('take_screenshot', { result: screenshotResult() });
    const set = await callTool(client, 'set_screenshot_frequency', {
      mode: 'periodic',
      interval_ms: 250,
    });
    expect(set.isError).toBeFalsy();
    await waitUntil(() => phone.toolCalls('take_screenshot').length >= 1, 3000);
    await bridge.desktopControl.planes.updatePermissions(bridge.admin.id, { screenshots: false });
    const count = phone.toolCalls('take_screenshot').length;
    await new Promise((r) => setTimeout(r, 800)); // three ticks, all refused
    expect(phone.toolCalls('take_screenshot').length).toBeLessThanOrEqual(count + 1);
    const refusals = (await auditEntries('tool_call')).filter(
      (e) => e.summary === 'background capture (set_screenshot_frequency)',
    );
    expect(refusals).toHaveLength(1);
    expect(refusals[0]).toMatchObject({
      decision: 'deny',
      outcome: 'permission_denied',
      tool: 'take_screenshot',
    });
    expect(refusals[0]?.detail).toMatch(/screenshots/);
    await expect(client.readResource({ uri: 'screenshot://latest' })).rejects.toThrow();
    await bridge.desktopControl.planes.updatePermissions(bridge.admin.id, { screenshots: true });
    await callTool(client, 'set_screenshot_frequency', { mode: 'manual' });
  });
});
