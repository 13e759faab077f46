// Storage suite, session recordings: a row per recording (added while recording, finished with
// its end, size and gaps; what all its files take and where they are, an S3 bucket and prefix
// included), newest first, removed on its own; and each desktop's recording setting (null: the
// bridge's default), which outlives neither its desktop nor a bad value.
import { expect, test } from 'vitest';
import { newId } from '../../ids.js';
import { addPerson, type Backend } from '../fixture.js';

export function recordingsSuite(backend: Backend): void {
  test('rows: added, finished, listed newest first, removed', async () => {
    const { store } = await backend.fresh();
    const owner = await addPerson(store);
    await store.recordings.add({
      id: 'r1',
      desktopId: 'dsk_a',
      ownerId: owner.id,
      startedAt: 1_000,
    });
    await store.recordings.add({ id: 'r2', desktopId: 'dsk_b', ownerId: null, startedAt: 2_000 });
    expect(await store.recordings.byId('r1')).toEqual({
      id: 'r1',
      desktopId: 'dsk_a',
      ownerId: owner.id,
      startedAt: 1_000,
      endedAt: null,
      bytes: 0,
      gaps: [],
      storedBytes: 0,
      location: 'local',
      s3Bucket: null,
      s3Prefix: null,
    });
    const gaps = [{ from: 1_500, to: 1_600, reason: 'the disk is too slow' }];
    await store.recordings.update('r1', { endedAt: 1_700_000_000_000, bytes: 5_000_000_000, gaps });
    expect(await store.recordings.byId('r1')).toMatchObject({
      endedAt: 1_700_000_000_000,
      bytes: 5_000_000_000,
      gaps,
    });
    // What all its files take, and where they are: beyond 32 bits on both backends.
    await store.recordings.update('r1', { storedBytes: 12_000_000_000, location: 's3' });
    expect(await store.recordings.byId('r1')).toMatchObject({
      bytes: 5_000_000_000,
      storedBytes: 12_000_000_000,
      location: 's3',
      gaps,
    });
    // The bucket and prefix it lives under (migration 0009); other fields untouched.
    await store.recordings.update('r1', { s3Bucket: 'oc-recordings', s3Prefix: 'team-a/' });
    expect(await store.recordings.byId('r1')).toMatchObject({
      location: 's3',
      storedBytes: 12_000_000_000,
      s3Bucket: 'oc-recordings',
      s3Prefix: 'team-a/',
    });
    expect((await store.recordings.list()).find((r) => r.id === 'r1')).toMatchObject({
      s3Bucket: 'oc-recordings',
      s3Prefix: 'team-a/',
    });
    expect((await store.recordings.list()).map((r) => r.id)).toEqual(['r2', 'r1']);
    expect(await store.recordings.remove('r2')).toBe(true);
    expect(await store.recordings.remove('r2')).toBe(false);
    expect((await store.recordings.list()).map((r) => r.id)).toEqual(['r1']);
  });

  test("a desktop's setting: null by default, each mode, back to null; none for no desktop", async () => {
    const { store } = await backend.fresh();
    const owner = await addPerson(store);
    const desktop = await store.desktops.add({
      id: newId('dsk'),
      name: 'Office PC',
      kind: 'vnc',
      params: {},
      secret: null,
      ownerId: owner.id,
    });
    expect(await store.recordings.desktopMode(desktop.id)).toBeNull();
    for (const mode of ['on', 'person', 'off'] as const) {
      expect(await store.recordings.setDesktopMode(desktop.id, mode)).toBe(true);
      expect(await store.recordings.desktopMode(desktop.id)).toBe(mode);
    }
    await store.recordings.setDesktopMode(desktop.id, null);
    expect(await store.recordings.desktopMode(desktop.id)).toBeNull();
    expect(await store.recordings.setDesktopMode('dsk_gone', 'on')).toBe(false);
    expect(await store.recordings.desktopMode('dsk_gone')).toBeNull();
  });
}
