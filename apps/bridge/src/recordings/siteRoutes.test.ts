// A recording being made on another bridge of the site (the store is shared; its files are in
// that bridge's data dir, and only that bridge knows it is live): its row has no end yet. Its
// desktop's owner cannot delete it through this bridge — a recording being made is never
// deleted, wherever it is made — while an admin can remove a row whose bridge is gone for good.
// A real bridge over HTTP; the other bridge's row written into its store as that bridge would.
import { API } from '@overlay-companion/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestBridge, type TestBridge } from '../mcp/testing/fixtures.js';
import { addPerson, type OtherPerson } from '../perimeter/testing/people.js';

describe('a recording being made on another bridge of the site', () => {
  let bridge: TestBridge;
  let carol: OtherPerson;
  let desktop: string;

  beforeAll(async () => {
    bridge = await startTestBridge();
    carol = await addPerson(bridge.session, 'carol');
    const made = await bridge.session.request(API.desktops, {
      body: {
        name: 'Carol’s',
        kind: 'vnc',
        params: { host: 'vnc.example', port: 5900 },
        owner_id: carol.person.id,
      },
    });
    expect(made.status).toBe(201);
    desktop = ((await made.json()) as { id: string }).id;
  });
  afterAll(async () => {
    await bridge?.close();
  });

  /** The row another bridge writes as its recording of the desktop starts. */
  const beingMadeElsewhere = async (id: string): Promise<void> =>
    bridge.access.store.recordings.add({
      id,
      desktopId: desktop,
      ownerId: carol.person.id,
      startedAt: Date.now() - 5_000,
    });

  it('is not deleted by its desktop’s owner through this bridge (409, the row stays)', async () => {
    await beingMadeElsewhere('elsewhere-being-made-1');
    const res = await carol.session.request('/api/recordings/elsewhere-being-made-1', {
      method: 'DELETE',
    });
    expect(res.status).toBe(409);
    expect(((await res.json()) as { error: string }).error).toContain('another bridge');
    expect(await bridge.access.store.recordings.byId('elsewhere-being-made-1')).toBeDefined();
  });

  it('an admin may remove one whose bridge is gone for good', async () => {
    await beingMadeElsewhere('elsewhere-left-open-2');
    const res = await bridge.session.request('/api/recordings/elsewhere-left-open-2', {
      method: 'DELETE',
    });
    expect(res.status).toBe(204);
    expect(await bridge.access.store.recordings.byId('elsewhere-left-open-2')).toBeUndefined();
  });
});
