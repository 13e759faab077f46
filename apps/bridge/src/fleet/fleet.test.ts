// The fleet feed (/ws/fleet), real bridge, real sockets, SCRIPTED VIEWERS: a person sees exactly
// the desktops they may see (another person's desktop never appears), approvals are listed only
// to the person in charge and answered through the hub's approval_answer path (someone else's
// answer is refused and nothing reaches the control window), Stop all stops only what the person
// may stop, and the feed needs a fresh fleet ticket.
import { API, DesktopView } from '@overlay-companion/protocol';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import WebSocket from 'ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callTool } from '../mcp/testing/calls.js';
import { connectClient, startTestBridge, type TestBridge } from '../mcp/testing/fixtures.js';
import { ScriptedViewer } from '../mcp/testing/scriptedViewer.js';
import { addPerson, type OtherPerson } from '../perimeter/testing/people.js';
import { nextOf, ofType, settle } from '../perimeter/testing/viewers.js';
import { MAX_FLEET_FEEDS_PER_PERSON } from './fleetSocket.js';
import { FleetClient } from './testing/fleetClient.js';

/** A 1×1 PNG, base64 (what a control window's preview square looks like on the wire). */
const PREVIEW_PNG =
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==';

let bridge: TestBridge;
/** Bob may view the admin's desktop and owns one of his own; Carol may see nothing. */
let bob: OtherPerson;
let carol: OtherPerson;
let adminDesktop: string;
let bobsDesktop: string;
let adminSecond: string;
let control: ScriptedViewer;
let client: Client;
let adminFleet: FleetClient;
let bobFleet: FleetClient;

async function addDesktop(name: string, ownerId?: string): Promise<string> {
  const made = await bridge.session.request(API.desktops, {
    body: {
      name,
      kind: 'vnc',
      params: { host: 'vnc.example', port: 5900 },
      ...(ownerId === undefined ? {} : { owner_id: ownerId }),
    },
  });
  expect(made.status, await made.clone().text()).toBe(201);
  return DesktopView.parse(await made.json()).id;
}

beforeAll(async () => {
  bridge = await startTestBridge();
  bob = await addPerson(bridge.session, 'bob', { grant: 'view', displayName: 'Bob' });
  carol = await addPerson(bridge.session, 'carol', { displayName: 'Carol' });
  adminDesktop = bridge.adminPlane.desktopId;
  // The window and the AI client settle on the admin's desktop, the only one so far.
  control = await ScriptedViewer.connect(bridge);
  ({ client } = await connectClient(bridge));
  await callTool(client, 'list_desktops', {});
  adminSecond = await addDesktop('Admin second');
  bobsDesktop = await addDesktop('Bob’s own', bob.person.id);
  bridge.desktopControl.directory.invalidate();
  adminFleet = await FleetClient.connect(bridge.session);
  bobFleet = await FleetClient.connect(bob.session);
});

afterAll(async () => {
  await client?.close();
  await control?.close();
  await adminFleet?.close();
  await bobFleet?.close();
  await bridge.close();
});

const ids = (desktops: Array<{ id: string }>): string[] => desktops.map((d) => d.id).sort();

describe('fleet feed', () => {
  it('lists exactly the desktops each person may see, with who is in charge', async () => {
    const admin = await adminFleet.waitForState((d) => d.length === 3);
    // The admin sees every desktop (as an admin on Bob's).
    expect(ids(admin)).toEqual([adminDesktop, adminSecond, bobsDesktop].sort());
    expect(admin.find((d) => d.id === bobsDesktop)).toMatchObject({
      access: 'admin',
      in_charge: { id: bob.person.id },
      you_in_charge: false,
    });
    expect(admin.find((d) => d.id === adminDesktop)).toMatchObject({
      access: 'owner',
      you_in_charge: true,
      control_window: true,
      mode: 'assist',
    });
    // Bob: the admin's desktop (view grant) and his own; never the admin's second desktop.
    const bobs = await bobFleet.waitForState((d) => d.length === 2);
    expect(ids(bobs)).toEqual([adminDesktop, bobsDesktop].sort());
    expect(bobs.find((d) => d.id === adminDesktop)).toMatchObject({
      access: 'view',
      you_in_charge: false,
    });
    // Carol may see nothing: an empty fleet, not an error.
    const carols = await FleetClient.connect(carol.session);
    expect(carols.desktops).toEqual([]);
    await carols.close();
    for (const fleet of [adminFleet, bobFleet]) expect(fleet.invalid).toEqual([]);
  });

  it('shows the AI clients and what each last did', async () => {
    // What it answers does not matter here: the call is what the tile reports.
    await callTool(client, 'get_display_info', {});
    const admin = await adminFleet.waitForState(
      (d) => d.find((x) => x.id === adminDesktop)?.ai_clients[0]?.last_tool === 'get_display_info',
    );
    expect(admin.find((d) => d.id === adminDesktop)?.ai_clients[0]?.client.name).toBe(
      'bridge-test',
    );
  });

  it('lists approvals only to the person in charge, and refuses anyone else’s answer', async () => {
    let answer = (_approved: boolean): void => undefined;
    const answered = new Promise<boolean>((resolve) => (answer = resolve));
    const asked = nextOf(control, 'tool_call');
    control.on('click_at', async () => {
      const approved = await answered;
      control.send({ type: 'approvals_waiting', requests: [] });
      return approved
        ? { result: { success: true, was_confirmed: true } }
        : { error: { kind: 'permission_denied', message: 'The person declined click_at.' } };
    });
    const call = callTool(client, 'click_at', { x: 40, y: 50 });
    await asked();
    const shownAfter = Date.now();
    control.send({
      type: 'approvals_waiting',
      requests: [
        {
          title: 'Click with the left button',
          deadline_in_ms: 29_000,
          request_id: 'confirm_f_1',
          intent: 'Open the report',
          preview: { x: 40, y: 50, png: PREVIEW_PNG },
        },
      ],
    });
    const admin = await adminFleet.waitForState(
      (d) => (d.find((x) => x.id === adminDesktop)?.approvals.length ?? 0) === 1,
    );
    const listed = admin.find((x) => x.id === adminDesktop)?.approvals[0];
    // What the fleet's row shows the person: the AI's reason and the desktop's pixels at the point.
    expect(listed).toMatchObject({
      request_id: 'confirm_f_1',
      title: 'Click with the left button',
      intent: 'Open the report',
      preview: { x: 40, y: 50, png: PREVIEW_PNG },
    });
    expect(listed?.deadline_at).toBeGreaterThanOrEqual(shownAfter + 28_000);
    // Bob watches that desktop but is not in charge: the question is not his to see…
    await new Promise((r) => setTimeout(r, 250));
    expect(bobFleet.desktops.find((d) => d.id === adminDesktop)?.approvals).toEqual([]);
    // …nor to answer, even with the request id guessed; nothing reaches the control window.
    const refusedBob = bobFleet.next('fleet_error');
    bobFleet.send({
      type: 'fleet_answer',
      desktop_id: adminDesktop,
      request_id: 'confirm_f_1',
      approved: true,
    });
    expect((await refusedBob()).message).toMatch(/only a window of the person in charge/);
    // Carol cannot even name the desktop.
    const carols = await FleetClient.connect(carol.session);
    const refusedCarol = carols.next('fleet_error');
    carols.send({
      type: 'fleet_answer',
      desktop_id: adminDesktop,
      request_id: 'confirm_f_1',
      approved: true,
    });
    expect((await refusedCarol()).message).toMatch(/No such desktop of yours/);
    await carols.close();
    await settle(control);
    expect(ofType(control, 'approval_answer')).toEqual([]);
    // The person in charge answers from the fleet: relayed to the control window as
    // approval_answer, which settles it as if answered in its own panel.
    const relayed = nextOf(control, 'approval_answer');
    adminFleet.send({
      type: 'fleet_answer',
      desktop_id: adminDesktop,
      request_id: 'confirm_f_1',
      approved: true,
    });
    const got = await relayed();
    expect(got).toEqual({ type: 'approval_answer', request_id: 'confirm_f_1', approved: true });
    answer(got.approved);
    expect((await call).isError).toBeFalsy();
    await adminFleet.waitForState(
      (d) => d.find((x) => x.id === adminDesktop)?.approvals.length === 0,
    );
  });

  it('Stop all stops only the desktops the person may stop; Stop names one they may see', async () => {
    const planes = bridge.desktopControl.planes;
    const second = await planes.get(adminSecond);
    const bobs = await planes.get(bobsDesktop);
    if (second === undefined || bobs === undefined) throw new Error('no planes');
    for (const plane of [bridge.adminPlane, second, bobs])
      plane.mode.set('autopilot', undefined, 'person');
    // Bob may stop the admin's desktop (anyone who sees it, as in its viewer) and his own…
    const stopped = bobFleet.next('fleet_stopped');
    bobFleet.send({ type: 'fleet_stop_all' });
    expect((await stopped()).desktop_ids.sort()).toEqual([adminDesktop, bobsDesktop].sort());
    expect(bridge.adminPlane.mode.mode).toBe('passive');
    expect(bobs.mode.mode).toBe('passive');
    // …but never one he may not see.
    expect(second.mode.mode).toBe('autopilot');
    const refused = bobFleet.next('fleet_error');
    bobFleet.send({ type: 'fleet_stop', desktop_id: adminSecond });
    expect((await refused()).message).toMatch(/No such desktop of yours/);
    expect(second.mode.mode).toBe('autopilot');
    // The control window heard Stop exactly as from a viewer's Stop.
    expect(ofType(control, 'stop').length).toBeGreaterThan(0);
    // The admin's Stop on one tile stops that one.
    const one = adminFleet.next('fleet_stopped');
    adminFleet.send({ type: 'fleet_stop', desktop_id: adminSecond });
    expect((await one()).desktop_ids).toEqual([adminSecond]);
    expect(second.mode.mode).toBe('passive');
    const state = await adminFleet.waitForState(
      (d) => d.find((x) => x.id === adminSecond)?.mode === 'passive',
    );
    expect(state.every((d) => d.mode === 'passive')).toBe(true);
  });

  it('drops a desktop from the feed when the grant is taken back, and refuses its Stop', async () => {
    const taken = await bridge.session.request(
      `${API.desktops}/${adminDesktop}/grants/${bob.person.id}`,
      { method: 'DELETE' },
    );
    expect(taken.status).toBeLessThan(300);
    const refused = bobFleet.next('fleet_error');
    bobFleet.send({ type: 'fleet_stop', desktop_id: adminDesktop });
    expect((await refused()).message).toMatch(/No such desktop of yours/);
    const left = await bobFleet.waitForState((d) => d.length === 1);
    expect(ids(left)).toEqual([bobsDesktop]);
  });

  it('refuses malformed requests, and a socket without a fresh fleet ticket', async () => {
    const error = adminFleet.next('fleet_error');
    adminFleet.send('{"type":"fleet_stop","desktop_id":"x","extra":1}');
    expect((await error()).message).toMatch(/invalid fleet message/);
    // A viewer ticket does not open the fleet feed, and no ticket at all is refused.
    const viewerTicket = await bridge.session.ticket('viewer');
    for (const ticket of [viewerTicket, '']) {
      const url = new URL(`/ws/fleet?ticket=${encodeURIComponent(ticket)}`, bridge.url);
      url.protocol = 'ws:';
      const ws = new WebSocket(url, { origin: new URL(bridge.url).origin });
      const status = await new Promise<number | undefined>((resolve) => {
        ws.once('unexpected-response', (_req, res) => resolve(res.statusCode));
        ws.once('open', () => resolve(undefined));
        ws.once('error', () => resolve(-1));
      });
      expect(status).toBe(401);
      ws.terminate();
    }
    // Another origin is refused before any ticket is read (hostGuard).
    const ticket = await bridge.session.ticket('fleet');
    const url = new URL(`/ws/fleet?ticket=${encodeURIComponent(ticket)}`, bridge.url);
    url.protocol = 'ws:';
    const ws = new WebSocket(url, { origin: 'https://evil.example' });
    const status = await new Promise<number | undefined>((resolve) => {
      ws.once('unexpected-response', (_req, res) => resolve(res.statusCode));
      ws.once('open', () => resolve(undefined));
      ws.once('error', () => resolve(-1));
    });
    expect(status).toBe(403);
    ws.terminate();
  });

  it('caps the fleet feeds one person holds open', async () => {
    // Tickets straight from the bridge's issuer: the HTTP route allows two a second.
    const socketFor = (): Promise<number | WebSocket> => {
      const issued = bridge.access.tickets.issue({
        personId: carol.person.id,
        sessionIdHash: 'test-session-carol',
        socket: 'fleet',
        headless: false,
        desktopId: undefined,
      });
      if (!issued.ok) throw new Error(issued.message);
      const url = new URL(`/ws/fleet?ticket=${encodeURIComponent(issued.ticket)}`, bridge.url);
      url.protocol = 'ws:';
      const ws = new WebSocket(url, { origin: new URL(bridge.url).origin });
      return new Promise((resolve) => {
        ws.once('unexpected-response', (_req, res) => resolve(res.statusCode ?? -1));
        ws.once('open', () => resolve(ws));
        ws.once('error', () => resolve(-1));
      });
    };
    const open: WebSocket[] = [];
    try {
      for (let i = 0; i < MAX_FLEET_FEEDS_PER_PERSON; i++) {
        const ws = await socketFor();
        if (typeof ws === 'number') throw new Error(`feed ${i} refused: ${ws}`);
        open.push(ws);
      }
      expect(await socketFor()).toBe(429);
      // Closing one makes room again.
      const first = open.shift();
      await new Promise<void>((resolve) => {
        first?.once('close', () => resolve());
        first?.close();
      });
      await new Promise((r) => setTimeout(r, 50));
      const again = await socketFor();
      expect(typeof again).not.toBe('number');
      if (typeof again !== 'number') open.push(again);
    } finally {
      for (const ws of open) ws.terminate();
    }
  });
});
