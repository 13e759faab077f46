// Desktops that belong to people, attacked by a second person and their AI: Bob, with no grant,
// reaches nothing; with `control` on the admin's desktop his window watches but never controls,
// his AI may only look, and his Stop stops every AI there; the charge moves only when the person
// in charge hands it over (or an admin or the owner takes it), and both windows say so; a `view`
// window cannot take over or set the mode; a token limited to one desktop is refused on another,
// with a message saying what to grant. Real bridge, real MCP clients, SCRIPTED VIEWERS opened
// with real tickets.
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { API, type DesktopStateMessage } from '@overlay-companion/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callTool, errorOf } from '../mcp/testing/calls.js';
import { connectClient, startTestBridge, type TestBridge } from '../mcp/testing/fixtures.js';
import { ScriptedViewer } from '../mcp/testing/scriptedViewer.js';
import { waitUntil } from '../mcp/testing/wait.js';
import { newId } from '../store/ids.js';
import { addPerson, createToken, type OtherPerson } from './testing/people.js';

let bridge: TestBridge;
let bob: OtherPerson;
let bobToken: { id: string; secret: string };
let bobClient: Client;
let adminClient: Client;
let desktopId: string;

const OVERLAY = { x: 10, y: 10, width: 20, height: 20 };

beforeAll(async () => {
  bridge = await startTestBridge();
  bob = await addPerson(bridge.session, 'bob', { displayName: 'Bob' });
  bobToken = await createToken(bob.session, 'bob ai');
  ({ client: bobClient } = await connectClient(bridge, { token: bobToken.secret }));
  ({ client: adminClient } = await connectClient(bridge));
  const id = await bridge.desktopControl.directory.cliDesktopId();
  if (id === undefined) throw new Error('no desktop');
  desktopId = id;
});

afterAll(async () => {
  await bobClient?.close();
  await adminClient?.close();
  await bridge.close();
});

async function grantBob(level: 'view' | 'control' | null): Promise<void> {
  const path = `${API.desktops}/${desktopId}/grants/${bob.person.id}`;
  const answer = await bridge.session.request(
    path,
    level === null ? { method: 'DELETE' } : { method: 'PUT', body: { level } },
  );
  expect(answer.status).toBeLessThan(300);
  // The API hands the change to the runtime without waiting for it.
  const deadline = Date.now() + 5000;
  for (;;) {
    const person = await bridge.access.store.people.byId(bob.person.id);
    const access = person && (await bridge.desktopControl.directory.accessFor(person, desktopId));
    if (level === null ? access === undefined : access?.access === level) return;
    if (Date.now() > deadline) throw new Error(`the grant did not become ${String(level)}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

function lastDesktopState(viewer: ScriptedViewer): DesktopStateMessage | undefined {
  return viewer.desktopStates.at(-1);
}

describe('a person without a grant', () => {
  it('opens no window and their AI reaches no desktop, with a message saying what to ask for', async () => {
    // Said when the page asks for its ticket (and shows it), not as a socket it keeps retrying.
    const refused = await bob.session.request(API.tickets, { body: { socket: 'viewer' } });
    expect(refused.status).toBe(404);
    expect(await refused.text()).toContain('no desktop yet');
    const error = errorOf(await callTool(bobClient, 'draw_overlay', OVERLAY));
    expect(error.kind).toBe('permission_denied');
    expect(error.message).toMatch(/no desktop yet.*grant/);
    const listed = await callTool(bobClient, 'list_desktops');
    expect(listed.isError).toBe(true);
  });

  it('cannot name the admin desktop in a ticket', async () => {
    const answer = await bob.session.request(API.tickets, {
      body: { socket: 'viewer', desktop: desktopId },
    });
    expect(answer.status).toBe(404);
  });
});

describe('a control grant on the admin desktop', () => {
  let bobViewer: ScriptedViewer;
  let adminViewer: ScriptedViewer;

  beforeAll(async () => {
    await grantBob('control');
    // Bob's window first: were control given to the first window, his would run the admin's AI.
    bobViewer = await ScriptedViewer.connect(bob.session);
    adminViewer = await ScriptedViewer.connect(bridge);
  });
  afterAll(async () => {
    await bobViewer?.close();
    await adminViewer?.close();
  });

  it('makes Bob a watcher: his window mirrors, the admin’s controls, both see who is in charge', async () => {
    expect(bobViewer.received.find((m) => m.type === 'hello')).toMatchObject({ role: 'mirror' });
    expect(adminViewer.received.find((m) => m.type === 'hello')).toMatchObject({ role: 'control' });
    await waitUntil(() => lastDesktopState(bobViewer)?.watchers.length === 2, 5000);
    const bobSees = lastDesktopState(bobViewer);
    expect(bobSees?.in_charge.name).toBe('Ada Admin');
    expect(bobSees?.you).toMatchObject({
      access: 'control',
      in_charge: false,
      may_take_charge: false,
    });
    const adminSees = lastDesktopState(adminViewer);
    expect(adminSees?.you.in_charge).toBe(true);
    expect(adminSees?.you.may_hand_over_to).toEqual([{ id: bob.person.id, name: 'Bob' }]);
  });

  it("keeps the questions waiting for the person in charge out of a watcher's window", async () => {
    const second = await ScriptedViewer.connect(bridge);
    try {
      adminViewer.send({
        type: 'approvals_waiting',
        requests: [{ title: 'Type "hunter2"', deadline_in_ms: 30_000, request_id: 'confirm_x_1' }],
      });
      // The admin's other window hears it; Bob's, watching the same desktop, does not.
      await second.waitFor((m) => m.type === 'approvals_waiting' && m.requests.length === 1);
      const bobLate = await ScriptedViewer.connect(bob.session);
      try {
        adminViewer.send({ type: 'approvals_waiting', requests: [] });
        await bobViewer.waitFor((m) => m.type === 'approvals_waiting' && m.requests.length === 0);
        for (const watcher of [bobViewer, bobLate])
          expect(
            watcher.received.some((m) => m.type === 'approvals_waiting' && m.requests.length > 0),
          ).toBe(false);
      } finally {
        await bobLate.close();
      }
    } finally {
      await second.close();
    }
  });

  it("lets Bob's AI only look; input and overlays are refused, naming who is in charge", async () => {
    const listed = await callTool(bobClient, 'list_desktops');
    expect(listed.structuredContent).toMatchObject({
      desktops: [{ id: desktopId, ai_may_act: false, access: 'control', in_charge: 'Ada Admin' }],
    });
    for (const [tool, args] of [
      ['draw_overlay', OVERLAY],
      ['click_at', { x: 5, y: 5 }],
      ['type_text', { text: 'env' }],
      ['set_mode', { mode: 'autopilot' }],
    ] as const) {
      const error = errorOf(await callTool(bobClient, tool, args));
      expect(error.kind).toBe('permission_denied');
      expect(error.message).toContain('Ada Admin is in charge');
      expect(error.message).toContain('hand the charge over');
    }
    // Nothing reached a window: no tool call was relayed.
    expect(adminViewer.received.some((m) => m.type === 'tool_call')).toBe(false);
    expect(bobViewer.received.some((m) => m.type === 'tool_call')).toBe(false);
  });

  it("refuses Bob's mode_set, and his Stop stops the admin's AI on the shared desktop", async () => {
    bobViewer.send({ type: 'mode_set', mode: 'autopilot' });
    await bobViewer.waitFor(
      (m) => m.type === 'error' && m.message.includes('only the person in charge'),
    );
    const plane = bridge.adminPlane;
    plane.mode.set('autopilot', undefined, 'person');
    bobViewer.send({ type: 'stop_pressed' });
    await waitUntil(() => plane.mode.mode === 'passive', 5000);
    await adminViewer.waitFor((m) => m.type === 'stop');
  });

  it('moves the charge only when handed over, shows it in both windows, and the AI follows it', async () => {
    // Bob cannot take it: he is neither the owner nor an admin.
    bobViewer.send({ type: 'charge', action: 'take' });
    await bobViewer.waitFor((m) => m.type === 'error' && m.message.includes('hand it over'));
    expect(bridge.adminPlane.inCharge().id).toBe(bridge.admin.id);

    adminViewer.send({ type: 'charge', action: 'hand_over', to: bob.person.id });
    await waitUntil(() => lastDesktopState(bobViewer)?.you.in_charge === true, 5000);
    expect(lastDesktopState(adminViewer)?.in_charge).toEqual({ id: bob.person.id, name: 'Bob' });
    expect(lastDesktopState(adminViewer)?.you.may_take_charge).toBe(true);
    // Bob's window took control; the admin's became a mirror.
    await waitUntil(
      () => bobViewer.received.filter((m) => m.type === 'hello').at(-1)?.role === 'control',
      5000,
    );
    expect(adminViewer.received.filter((m) => m.type === 'hello').at(-1)).toMatchObject({
      role: 'mirror',
    });

    // Now only Bob's AI acts here, and its calls go to Bob's window.
    bobViewer.on('draw_overlay', () => ({
      result: { overlay_id: 'ov_1', bounds: { ...OVERLAY }, monitor_index: 0 },
    }));
    const drawn = await callTool(bobClient, 'draw_overlay', OVERLAY);
    expect(drawn.isError).not.toBe(true);
    const refused = errorOf(await callTool(adminClient, 'draw_overlay', OVERLAY));
    expect(refused.message).toContain('Bob is in charge');
    expect(await bridge.access.store.desktops.byId(desktopId)).toMatchObject({
      inChargeId: bob.person.id,
    });

    // The admin takes it back (an admin may), and Bob's window sees it.
    adminViewer.send({ type: 'charge', action: 'take' });
    await waitUntil(() => lastDesktopState(bobViewer)?.you.in_charge === false, 5000);
    expect(bridge.adminPlane.inCharge().id).toBe(bridge.admin.id);
  });
});

describe('a view grant', () => {
  it('cannot take over, set the mode or take the charge', async () => {
    await grantBob('view');
    const viewer = await ScriptedViewer.connect(bob.session);
    try {
      await waitUntil(() => lastDesktopState(viewer)?.you.access === 'view', 5000);
      for (const [message, refusal] of [
        [{ type: 'take_over', on: true }, 'view-only'],
        [{ type: 'mode_set', mode: 'autopilot' }, 'only the person in charge'],
        [{ type: 'charge', action: 'take' }, 'hand it over'],
      ] as const) {
        viewer.send(message);
        await viewer.waitFor((m) => m.type === 'error' && m.message.includes(refusal));
      }
      expect(lastDesktopState(viewer)?.in_charge.id).toBe(bridge.admin.id);
    } finally {
      await viewer.close();
    }
  });

  it('loses its window at once when the grant is withdrawn', async () => {
    const viewer = await ScriptedViewer.connect(bob.session);
    await grantBob(null);
    await waitUntil(() => viewer.closed, 5000);
  });
});

describe('tokens limited to desktops', () => {
  it('are refused on another desktop, saying what to grant', async () => {
    const other = await bridge.access.store.desktops.add({
      id: newId('dsk'),
      name: 'Second desktop',
      kind: 'vnc',
      params: { host: '127.0.0.1', port: 9 },
      secret: null,
      ownerId: bridge.admin.id,
    });
    bridge.desktopControl.directory.invalidate();
    const answer = await bridge.session.request(API.tokens, {
      body: { name: 'only the first', desktops: [desktopId] },
    });
    expect(answer.status).toBe(201);
    const { secret } = (await answer.json()) as { secret: string };
    const { client } = await connectClient(bridge, { token: secret });
    try {
      const listed = await callTool(client, 'list_desktops');
      expect(
        (listed.structuredContent as { desktops: Array<{ id: string }> }).desktops.map((d) => d.id),
      ).toEqual([desktopId]);
      const refused = errorOf(await callTool(client, 'select_desktop', { desktop: other.id }));
      expect(refused.kind).toBe('permission_denied');
      expect(refused.message).toContain('This token may not use the desktop "Second desktop"');
      const perCall = errorOf(
        await callTool(client, 'get_display_info', { desktop: 'second desktop' }),
      );
      expect(perCall.message).toContain('make a token that names it');
    } finally {
      await client.close();
    }
  });
});
