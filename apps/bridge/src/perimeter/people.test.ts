// Attacks by a second signed-in person on the first (the admin), with a control grant on the
// admin's desktop (so his window watches it): his window must never see or answer the admin's
// tool calls and approvals, his forged answers (an approval for the admin's request id, a
// tool_result for the admin's call id) must be refused and change nothing, his mode_set is
// refused while his Stop stops every AI on the desktop, and his audit queries must show none of
// the admin's entries whatever he asks for. Real bridge, real MCP client with the admin's token,
// SCRIPTED VIEWERS (test ws clients speaking the viewer protocol) opened with real tickets.
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { API, type AuditPage } from '@overlay-companion/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callTool, errorOf } from '../mcp/testing/calls.js';
import {
  TINY_PNG_BASE64,
  TOKEN,
  connectClient,
  screenshotResult,
  startTestBridge,
  type TestBridge,
} from '../mcp/testing/fixtures.js';
import { ScriptedViewer, type Received } from '../mcp/testing/scriptedViewer.js';
import { nextOf, settle } from './testing/viewers.js';
import type { DesktopPlane } from '../mcp/desktopPlanes.js';
import { addPerson, type OtherPerson } from './testing/people.js';
import { initializeMcp } from './testing/http.js';

const OK_CLICK = { result: { success: true, was_confirmed: true } };
/** What the second person's forged answers carry: not what the admin's viewer answers. */
const FORGED_PNG_BASE64 = Buffer.from('forged screenshot').toString('base64');

let bridge: TestBridge;
let bob: OtherPerson;
let bobPlane: DesktopPlane;
let bobViewer: ScriptedViewer;
let adminViewer: ScriptedViewer;
let client: Client;

beforeAll(async () => {
  bridge = await startTestBridge();
  bob = await addPerson(bridge.session, 'bob');
  // Bob may watch the admin's desktop (a control grant): the admin stays in charge.
  const desktopId = await bridge.desktopControl.directory.cliDesktopId();
  await bridge.access.store.desktops.setGrant(desktopId ?? '', bob.person.id, 'control');
  bridge.desktopControl.directory.invalidate();
  // Bob's window opens first: were control given to the first window, his would be the control
  // window every call and approval goes to.
  bobViewer = await ScriptedViewer.connect(bob.session);
  adminViewer = await ScriptedViewer.connect(bridge);
  bobPlane = (await bridge.desktopControl.defaultPlaneFor(bob.person.id))!;
  ({ client } = await connectClient(bridge));
});

afterAll(async () => {
  await client?.close();
  await bobViewer?.close();
  await adminViewer?.close();
  await bridge.close();
});

/**
 * Messages the bridge sent to bob's window beyond the greeting. His own (empty) list of AI
 * clients, his own (empty) overlay store and his own (absent) layout are part of the greeting;
 * a list naming anyone's client, anyone's overlay or a layout would not be.
 */
function sentToBob(): Received[] {
  return bobViewer.received.filter(
    (m) =>
      m.type !== 'hello' &&
      m.type !== 'event_interest' &&
      m.type !== 'error' &&
      !(m.type === 'ai_clients' && m.clients.length === 0) &&
      !(m.type === 'sync_state' && m.overlays.length === 0) &&
      !(m.type === 'layout_changed' && m.layout === null),
  );
}

/** Sends `message` from bob's window and returns the error the bridge answered it with. */
async function bobSendsAndIsRefused(message: unknown): Promise<string> {
  const error = nextOf(bobViewer, 'error');
  bobViewer.send(message);
  return (await error()).message;
}

/** Holds the admin's viewer's answer to the next call of `tool` until `release` is called. */
function holdNext(tool: string, result: Record<string, unknown>): { release: () => void } {
  let release = (): void => undefined;
  const released = new Promise<void>((resolve) => (release = resolve));
  adminViewer.on(tool, async () => {
    await released;
    return { result };
  });
  return { release: () => release() };
}

describe('a second signed-in person', () => {
  it("never sees the admin's tool calls or approval requests in their own window", async () => {
    adminViewer.on('click_at', OK_CLICK);
    const click = await callTool(client, 'click_at', { x: 10, y: 20 });
    expect(click.isError).toBeFalsy();
    expect(adminViewer.toolCalls('click_at')).toHaveLength(1);

    const request = nextOf(adminViewer, 'approval_request');
    const raise = callTool(client, 'set_mode', { mode: 'autopilot' });
    const asked = await request();
    adminViewer.send({ type: 'approval', request_id: asked.request_id, approved: true });
    expect((await raise).isError).toBeFalsy();
    expect(bridge.adminPlane.mode.mode).toBe('autopilot');
    bridge.adminPlane.mode.set('assist', undefined, 'person');

    await settle(bobViewer);
    // Bob watches the same desktop: he sees its mode change, never a call or a question.
    expect(
      sentToBob().filter((m) => m.type === 'tool_call' || m.type === 'approval_request'),
    ).toEqual([]);
    expect(bobPlane).toBe(bridge.adminPlane);
  });

  it("cannot answer the admin's approval request with a forged approval (refused, mode unchanged)", async () => {
    const request = nextOf(adminViewer, 'approval_request');
    const raise = callTool(client, 'set_mode', { mode: 'autopilot' });
    const asked = await request();
    // Give bob the request id outright: guessing it is not the only defence.
    const refusal = await bobSendsAndIsRefused({
      type: 'approval',
      request_id: asked.request_id,
      approved: true,
    });
    expect(refusal).toMatch(/unknown or expired request/);
    expect(bridge.adminPlane.mode.mode).toBe('assist');

    adminViewer.send({ type: 'approval', request_id: asked.request_id, approved: false });
    const answer = await raise;
    expect(errorOf(answer).kind).toBe('permission_denied');
    expect(bridge.adminPlane.mode.mode).toBe('assist');
    expect(bobPlane.mode.mode).toBe('assist');
  });

  it("cannot answer the admin's tool call with a forged tool_result (refused, the admin's answer stands)", async () => {
    const held = holdNext('take_screenshot', screenshotResult(TINY_PNG_BASE64));
    const relayed = nextOf(adminViewer, 'tool_call');
    const shot = callTool(client, 'take_screenshot', {});
    const callId = (await relayed()).id;
    const refusal = await bobSendsAndIsRefused({
      type: 'tool_result',
      id: callId,
      result: screenshotResult(FORGED_PNG_BASE64),
    });
    expect(refusal).toMatch(/unknown or finished call/);
    const forgedError = await bobSendsAndIsRefused({
      type: 'tool_error',
      id: callId,
      kind: 'permission_denied',
      message: 'forged refusal',
    });
    expect(forgedError).toMatch(/unknown or finished call/);
    expect(bridge.adminPlane.hub.pendingCalls).toBe(1);

    held.release();
    const result: CallToolResult = await shot;
    expect(result.isError).toBeFalsy();
    const image = result.content.find((c) => c.type === 'image');
    expect(image).toMatchObject({ type: 'image', data: TINY_PNG_BASE64 });
  });

  it("cannot set the shared desktop's mode, but his Stop stops every AI on it (the admin's waiting call included)", async () => {
    const held = holdNext('take_screenshot', screenshotResult());
    const relayed = nextOf(adminViewer, 'tool_call');
    const shot = callTool(client, 'take_screenshot', {});
    await relayed();

    // Raising (or lowering) the mode is the person in charge's alone.
    expect(await bobSendsAndIsRefused({ type: 'mode_set', mode: 'autopilot' })).toMatch(
      /only the person in charge/,
    );
    expect(bridge.adminPlane.mode.mode).toBe('assist');

    // Stop from anyone with access stops all AI input on the desktop, and the admin sees it.
    const stoppedForAdmin = nextOf(adminViewer, 'stop');
    bobViewer.send({ type: 'stop_pressed' });
    await stoppedForAdmin();
    expect(bridge.adminPlane.mode.mode).toBe('passive');
    const result = await shot;
    expect(errorOf(result).kind).toBe('cancelled');
    held.release();
    bridge.adminPlane.mode.set('assist', undefined, 'person');
  });

  it("sees none of the admin's audit entries, even when asking for them with person_id", async () => {
    await bridge.session.request(API.myPermissions, {
      method: 'PUT',
      body: { audit_screenshots: true },
    });
    adminViewer.on('take_screenshot', { result: screenshotResult() });
    expect((await callTool(client, 'take_screenshot', {})).isError).toBeFalsy();
    await bridge.access.audit.flush();

    const adminPage = (await (
      await bridge.session.request(`${API.audit}?limit=500`)
    ).json()) as AuditPage;
    const adminEntries = adminPage.entries.filter((e) => e.person_id === bridge.admin.id);
    expect(adminEntries.length).toBeGreaterThan(3);
    const withShot = adminEntries.find((e) => e.has_screenshot);
    expect(withShot).toBeDefined();

    for (const query of [
      '',
      `?person_id=${bridge.admin.id}`,
      `?person_id=${bridge.admin.id}&kind=tool_call`,
    ]) {
      const answer = await bob.session.request(`${API.audit}${query}`);
      expect(answer.status).toBe(200);
      const page = (await answer.json()) as AuditPage;
      expect(
        page.entries.filter((e) => e.person_id !== bob.person.id),
        `GET /api/audit${query}`,
      ).toEqual([]);
    }
    const exported = await bob.session.request(`${API.auditExport}?person_id=${bridge.admin.id}`);
    expect(exported.status).toBe(200);
    const lines = (await exported.text()).split('\n').filter(Boolean);
    expect(
      lines
        .map((l) => (JSON.parse(l) as { person_id: string }).person_id)
        .filter((id) => id !== bob.person.id),
    ).toEqual([]);

    const shot = await bob.session.request(`${API.audit}/${withShot?.id ?? 0}/screenshot`);
    expect(shot.status).toBe(404);
    expect(
      (await bridge.session.request(`${API.audit}/${withShot?.id ?? 0}/screenshot`)).status,
    ).toBe(200);
  });

  it("cannot revoke the admin's tokens, nor add, change or remove people", async () => {
    const revoke = await bob.session.request(`${API.tokens}/tok_test_token`, { method: 'DELETE' });
    expect(revoke.status).toBe(404);
    // The token still works.
    const mcp = await initializeMcp(bridge.url, TOKEN);
    expect(mcp.status).toBe(200);

    expect((await bob.session.request(API.people)).status).toBe(403);
    expect(
      (
        await bob.session.request(API.people, {
          body: { username: 'bobs-friend', password: 'friend-password-0123', role: 'admin' },
        })
      ).status,
    ).toBe(403);
    expect(
      (
        await bob.session.request(`${API.people}/${bob.person.id}`, {
          method: 'PATCH',
          body: { role: 'admin' },
        })
      ).status,
    ).toBe(403);
    expect(
      (await bob.session.request(`${API.people}/${bridge.admin.id}`, { method: 'DELETE' })).status,
    ).toBe(403);
    expect(
      (
        await bob.session.request(API.settings, {
          method: 'PUT',
          body: { audit_retention_days: 1 },
        })
      ).status,
    ).toBe(403);
    const me = await bridge.access.store.people.byId(bob.person.id);
    expect(me?.role).toBe('member');
    expect(await bridge.access.store.people.byId(bridge.admin.id)).toBeDefined();
  });
});
