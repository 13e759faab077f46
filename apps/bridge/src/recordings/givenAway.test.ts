// A desktop given to someone else (an admin changes its owner): the recordings made while its
// earlier owner had it show that person's screens, which the new owner and the desktop's grantees
// never saw. They stay with the owner at the time and the admins — listed, played and deleted by
// them — like a removed desktop's; everyone else is told they do not exist (404, word for word as
// for no recording). What is recorded after the change is the new owner's, as usual. A real
// bridge, real sign-ins over HTTP.
import { API } from '@overlay-companion/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestBridge, type TestBridge } from '../mcp/testing/fixtures.js';
import { addPerson, type OtherPerson } from '../perimeter/testing/people.js';
import type { BrowserSession } from '../testing/browserSession.js';
import { writeSampleRecording } from './testing/sampleRecording.js';

const listed = async (session: BrowserSession): Promise<string[]> => {
  const res = await session.request('/api/recordings');
  expect(res.status).toBe(200);
  const { recordings } = (await res.json()) as { recordings: Array<{ id: string }> };
  return recordings.map((r) => r.id).sort();
};

describe('recordings of a desktop given to someone else', () => {
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

  it('stay with the owner at the time and the admins; the new owner and the grantees get 404', async () => {
    const made = await bridge.session.request(API.desktops, {
      body: {
        name: 'Carol’s',
        kind: 'vnc',
        params: { host: 'vnc.example', port: 5900 },
        owner_id: carol.person.id,
      },
    });
    expect(made.status).toBe(201);
    const desktop = ((await made.json()) as { id: string }).id;
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
});
