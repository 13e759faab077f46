// The fleet feed is pushed, not polled (fleetFeed.ts): real bridge, real sockets, SCRIPTED
// VIEWERS. An idle feed reads nothing (its reads counted, not timed), a burst of changes is one
// re-read, and every change a tile shows reaches an open feed with no timer to carry it: an
// approval listed and withdrawn, the mode, the charge moving, the control window leaving, a
// desktop added, renamed, granted and removed, and a person made an admin.
import { API, DesktopView, type FleetDesktop } from '@overlay-companion/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestBridge, type TestBridge } from '../mcp/testing/fixtures.js';
import { ScriptedViewer } from '../mcp/testing/scriptedViewer.js';
import { waitUntil } from '../mcp/testing/wait.js';
import { addPerson, type OtherPerson } from '../perimeter/testing/people.js';
import { FleetFeed } from './fleetFeed.js';
import { FleetClient } from './testing/fleetClient.js';

let bridge: TestBridge;
/** Bob may control the admin's desktop; Carol may see nothing (until made an admin). */
let bob: OtherPerson;
let carol: OtherPerson;
let adminDesktop: string;
let control: ScriptedViewer;
let adminFleet: FleetClient;
let carolFleet: FleetClient;

beforeAll(async () => {
  bridge = await startTestBridge();
  bob = await addPerson(bridge.session, 'bob', { grant: 'control', displayName: 'Bob' });
  carol = await addPerson(bridge.session, 'carol', { displayName: 'Carol' });
  adminDesktop = bridge.adminPlane.desktopId;
  control = await ScriptedViewer.connect(bridge);
  adminFleet = await FleetClient.connect(bridge.session);
  carolFleet = await FleetClient.connect(carol.session);
});

afterAll(async () => {
  await control?.close();
  await adminFleet?.close();
  await carolFleet?.close();
  await bridge?.close();
});

const tile = (desktops: FleetDesktop[], id: string): FleetDesktop | undefined =>
  desktops.find((d) => d.id === id);

describe('the fleet feed, pushed', () => {
  it('reads nothing while nothing changes, and once for a burst of changes', async () => {
    let reads = 0;
    const sent: FleetDesktop[][] = [];
    const { desktopControl, access } = bridge;
    const feed = new FleetFeed({
      sources: {
        store: access.store,
        directory: desktopControl.directory,
        planes: desktopControl.planes,
        peopleChanged: (listener) => access.tokens.onChanged(listener),
      },
      personId: bridge.admin.id,
      send: (desktops) => sent.push(desktops),
      inactive: () => undefined,
      failed: (err) => {
        throw err;
      },
      onRead: () => (reads += 1),
    });
    try {
      await waitUntil(() => sent.length === 1, 5000);
      const settled = reads;
      // A quiet moment (many times what a polling feed waited between reads): no read at all.
      await new Promise((r) => setTimeout(r, 600));
      expect(reads).toBe(settled);
      expect(sent).toHaveLength(1);
      // Three changes in one turn: one re-read, one state sent, the last mode in it.
      const { mode } = bridge.adminPlane;
      mode.set('autopilot', undefined, 'person');
      mode.set('passive', undefined, 'person');
      mode.set('assist', undefined, 'person');
      mode.set('autopilot', undefined, 'person');
      await waitUntil(() => sent.length === 2, 5000);
      expect(reads).toBe(settled + 1);
      expect(tile(sent[1] ?? [], adminDesktop)?.mode).toBe('autopilot');
      mode.set('assist', undefined, 'person');
      await waitUntil(() => sent.length === 3, 5000);
    } finally {
      feed.close();
    }
    // A closed feed hears nothing more.
    const closedAt = reads;
    bridge.adminPlane.mode.set('passive', undefined, 'person');
    bridge.adminPlane.mode.set('assist', undefined, 'person');
    await new Promise((r) => setImmediate(r));
    await new Promise((r) => setImmediate(r));
    expect(reads).toBe(closedAt);
  });

  it('pushes the mode and an approval listed, then withdrawn', async () => {
    bridge.adminPlane.mode.set('autopilot', undefined, 'person');
    await adminFleet.waitForState((d) => tile(d, adminDesktop)?.mode === 'autopilot');
    control.send({
      type: 'approvals_waiting',
      requests: [{ title: 'Click with the left button', deadline_in_ms: 29_000, request_id: 'p1' }],
    });
    const listed = await adminFleet.waitForState(
      (d) => tile(d, adminDesktop)?.approvals.length === 1,
    );
    expect(tile(listed, adminDesktop)?.approvals[0]).toMatchObject({ request_id: 'p1' });
    control.send({ type: 'approvals_waiting', requests: [] });
    await adminFleet.waitForState((d) => tile(d, adminDesktop)?.approvals.length === 0);
    bridge.adminPlane.mode.set('assist', undefined, 'person');
    await adminFleet.waitForState((d) => tile(d, adminDesktop)?.mode === 'assist');
  });

  it('pushes the charge moving and the control window leaving', async () => {
    const bobWindow = await ScriptedViewer.connect(bob.session);
    try {
      control.send({ type: 'charge', action: 'hand_over', to: bob.person.id });
      // Bob's window took control: the admin is no longer in charge, a window still controls.
      const moved = await adminFleet.waitForState(
        (d) => tile(d, adminDesktop)?.in_charge.id === bob.person.id,
      );
      expect(tile(moved, adminDesktop)).toMatchObject({
        you_in_charge: false,
        control_window: true,
        in_charge: { name: 'Bob' },
      });
    } finally {
      await bobWindow.close();
    }
    // Bob's window was the control window; the admin's is not his, so none controls now.
    await adminFleet.waitForState((d) => tile(d, adminDesktop)?.control_window === false);
    // The admin takes the charge back: their window controls again.
    control.send({ type: 'charge', action: 'take' });
    await adminFleet.waitForState(
      (d) =>
        tile(d, adminDesktop)?.you_in_charge === true &&
        tile(d, adminDesktop)?.control_window === true,
    );
  });

  it('pushes a desktop added, renamed, granted and removed', async () => {
    const made = await bridge.session.request(API.desktops, {
      body: { name: 'Pushed', kind: 'vnc', params: { host: 'vnc.example', port: 5900 } },
    });
    expect(made.status, await made.clone().text()).toBe(201);
    const id = DesktopView.parse(await made.json()).id;
    await adminFleet.waitForState((d) => tile(d, id)?.name === 'Pushed');
    const renamed = await bridge.session.request(`${API.desktops}/${id}`, {
      method: 'PATCH',
      body: { name: 'Pushed again' },
    });
    expect(renamed.status, await renamed.clone().text()).toBe(200);
    await adminFleet.waitForState((d) => tile(d, id)?.name === 'Pushed again');
    // Carol sees it once she is given it.
    expect(carolFleet.desktops).toEqual([]);
    const granted = await bridge.session.request(
      `${API.desktops}/${id}/grants/${carol.person.id}`,
      {
        method: 'PUT',
        body: { level: 'view' },
      },
    );
    expect(granted.status).toBeLessThan(300);
    await carolFleet.waitForState((d) => tile(d, id)?.access === 'view');
    const removed = await bridge.session.request(`${API.desktops}/${id}`, { method: 'DELETE' });
    expect(removed.status).toBeLessThan(300);
    await adminFleet.waitForState((d) => tile(d, id) === undefined && d.length > 0);
    await carolFleet.waitForState((d) => d.length === 0);
  });

  it('pushes a person made an admin (they see every desktop) and made a member again', async () => {
    const role = async (value: 'admin' | 'member'): Promise<void> => {
      const changed = await bridge.session.request(`${API.people}/${carol.person.id}`, {
        method: 'PATCH',
        body: { role: value },
      });
      expect(changed.status, await changed.clone().text()).toBe(200);
    };
    await role('admin');
    const all = await carolFleet.waitForState((d) => tile(d, adminDesktop) !== undefined);
    expect(tile(all, adminDesktop)?.access).toBe('admin');
    await role('member');
    await carolFleet.waitForState((d) => d.length === 0);
    for (const fleet of [adminFleet, carolFleet]) expect(fleet.invalid).toEqual([]);
  });
});
