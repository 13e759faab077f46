// Who may see and delete a recording when its desktop changes hands, or when it is being made on
// another bridge of the site. A real bridge, real sign-ins over HTTP.
// - A desktop given to someone else (an admin changes its owner): the recordings made while its
//   earlier owner had it show that person's screens, which the new owner and the desktop's
//   grantees never saw. They stay with the owner at the time and the admins — listed, played and
//   deleted by them — like a removed desktop's; everyone else is told they do not exist (404,
//   word for word as for no recording). What is recorded after the change is the new owner's.
// - A recording being made on another bridge of the site (the store is shared; its files are in
//   that bridge's data dir, and only that bridge knows it is live): its row has no end yet. Its
//   desktop's owner cannot delete it through this bridge — a recording being made is never
//   deleted, wherever it is made — while an admin can remove a row whose bridge is gone for good.
//   The other bridge's row is written into the store as that bridge would.
import { API } from '@overlay-companion/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestBridge, type TestBridge } from '../mcp/testing/fixtures.js';
import { addPerson, type OtherPerson } from '../perimeter/testing/people.js';
import { desktopOwnedBy, listedRecordings as listed } from './testing/ownedDesktops.js';
import { writeSampleRecording } from './testing/sampleRecording.js';

describe('recordings as desktops change hands and bridges', () => {
  let bridge: TestBridge;
  let carol: OtherPerson;
  let dan: OtherPerson;
  let vic: OtherPerson;
  const t0 = Date.now() - 10_000;

  beforeAll(async () => {
    bridge = await startTestBridge();
    carol = await addPerson(bridge.session, 'carol');
    dan = await addPerson(bridge.session, 'dan');
    vic = await addPerson(bridge.session, 'vic');
  });
  afterAll(async () => {
    await bridge?.close();
  });

  it('given away: they stay with the owner at the time and the admins; the new owner and the grantees get 404', async () => {
    const desktop = await desktopOwnedBy(bridge.session, carol.person.id, 'Carol’s');
    const granted = await bridge.session.request(
      `${API.desktops}/${desktop}/grants/${vic.person.id}`,
      { method: 'PUT', body: { level: 'view' } },
    );
    expect(granted.status).toBeLessThan(300);
    const carols = await writeSampleRecording(bridge, desktop, t0);
    expect(await listed(vic.session)).toEqual([carols]);

    const given = await bridge.session.request(`${API.desktops}/${desktop}`, {
      method: 'PATCH',
      body: { owner_id: dan.person.id },
    });
    expect(given.status).toBe(200);
    const dans = await writeSampleRecording(bridge, desktop, t0 + 5_000);

    // The new owner and the grantee see what is recorded from now on, not what was before.
    expect(await listed(dan.session)).toEqual([dans]);
    expect(await listed(vic.session)).toEqual([dans]);
    const nothing = await (
      await dan.session.request('/api/recordings/no-such-recording/stream')
    ).text();
    for (const session of [dan.session, vic.session])
      for (const path of ['stream', 'events', `frame?t=${t0 + 100}`, 'export.jsonl']) {
        const res = await session.request(`/api/recordings/${carols}/${path}`);
        expect(res.status, path).toBe(404);
        expect(await res.text(), path).toBe(nothing);
      }
    const refused = await dan.session.request(`/api/recordings/${carols}`, { method: 'DELETE' });
    expect(refused.status).toBe(404);

    // Its owner then still has it (she no longer sees the desktop), and the admins.
    expect(await listed(carol.session)).toEqual([carols]);
    expect(await listed(bridge.session)).toEqual(expect.arrayContaining([carols, dans]));
    const played = await carol.session.request(`/api/recordings/${carols}/stream`);
    expect(played.status).toBe(200);
    await played.arrayBuffer();
    const deleted = await carol.session.request(`/api/recordings/${carols}`, {
      method: 'DELETE',
    });
    expect(deleted.status).toBe(204);
    expect(await listed(bridge.session)).not.toContain(carols);
  });

  /** The row another bridge writes as its recording of `desktop` starts. */
  const beingMadeElsewhere = async (id: string, desktop: string): Promise<void> =>
    bridge.access.store.recordings.add({
      id,
      desktopId: desktop,
      ownerId: carol.person.id,
      startedAt: Date.now() - 5_000,
    });

  it('being made on another bridge: not deleted by its desktop’s owner through this one (409, the row stays); an admin may remove one whose bridge is gone for good', async () => {
    const desktop = await desktopOwnedBy(bridge.session, carol.person.id, 'Carol’s second');
    await beingMadeElsewhere('elsewhere-being-made-1', desktop);
    const res = await carol.session.request('/api/recordings/elsewhere-being-made-1', {
      method: 'DELETE',
    });
    expect(res.status).toBe(409);
    expect(((await res.json()) as { error: string }).error).toContain('another bridge');
    expect(await bridge.access.store.recordings.byId('elsewhere-being-made-1')).toBeDefined();

    const removed = await bridge.session.request('/api/recordings/elsewhere-being-made-1', {
      method: 'DELETE',
    });
    expect(removed.status).toBe(204);
    expect(await bridge.access.store.recordings.byId('elsewhere-being-made-1')).toBeUndefined();
  });
});
