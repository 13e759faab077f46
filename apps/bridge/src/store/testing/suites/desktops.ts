// Storage suite, desktops: add and look up (names unique ignoring case), list by name, update
// only what a patch names, grants (upsert, per desktop and per person, removal), what removing
// a desktop or a person takes with it, and the desktops an API token names.
import { expect, test } from 'vitest';
import { newId } from '../../ids.js';
import { StoreConflictError, type Store } from '../../types.js';
import { addPerson, type Backend } from '../fixture.js';

function addDesktop(store: Store, ownerId: string, name: string, secret: string | null = null) {
  return store.desktops.add({
    id: newId('dsk'),
    name,
    kind: 'guacd-rdp',
    params: { host: 'rdp.example', port: 3389, username: 'ada', keyboard: 'de-de-qwertz' },
    secret,
    ownerId,
  });
}

export function desktopsSuite(backend: Backend): void {
  test('add, byId, byName ignoring case, list by name', async () => {
    const { store, clock } = await backend.fresh();
    const owner = await addPerson(store);
    const made = await addDesktop(store, owner.id, 'Office PC', 'v1.sealed');
    expect(made).toEqual({
      id: expect.stringMatching(/^dsk_[A-Za-z0-9_-]{22}$/) as unknown,
      name: 'Office PC',
      kind: 'guacd-rdp',
      params: { host: 'rdp.example', port: 3389, username: 'ada', keyboard: 'de-de-qwertz' },
      secret: 'v1.sealed',
      ownerId: owner.id,
      inChargeId: null,
      targetSetByMember: false,
      createdAt: clock.now,
      updatedAt: clock.now,
    });
    expect(await store.desktops.byId(made.id)).toEqual(made);
    // Who chose the host is kept, and changes with it.
    const marked = await store.desktops.update(made.id, { targetSetByMember: true });
    expect(marked?.targetSetByMember).toBe(true);
    await store.desktops.update(made.id, { targetSetByMember: false });
    expect(await store.desktops.byName('office pc')).toEqual(made);
    expect(await store.desktops.byName('OFFICE PC')).toEqual(made);
    expect(await store.desktops.byId('dsk_nope')).toBeUndefined();
    expect(await store.desktops.byName('nope')).toBeUndefined();
    await addDesktop(store, owner.id, 'attic');
    await addDesktop(store, owner.id, 'Zebra');
    expect((await store.desktops.list()).map((d) => d.name)).toEqual([
      'attic',
      'Office PC',
      'Zebra',
    ]);
  });

  test('a taken name (any case) or an unknown owner is a conflict', async () => {
    const { store } = await backend.fresh();
    const owner = await addPerson(store);
    const first = await addDesktop(store, owner.id, 'Lab');
    await expect(addDesktop(store, owner.id, 'LAB')).rejects.toThrow(StoreConflictError);
    await expect(addDesktop(store, owner.id, 'LAB')).rejects.toThrow(/names ignore case/);
    await expect(addDesktop(store, 'p_gone', 'Other')).rejects.toThrow(
      /no person with id "p_gone"/,
    );
    const second = await addDesktop(store, owner.id, 'Second');
    await expect(store.desktops.update(second.id, { name: 'lab' })).rejects.toThrow(
      StoreConflictError,
    );
    // Renaming to another case of its own name is no conflict.
    expect((await store.desktops.update(first.id, { name: 'LAB' }))?.name).toBe('LAB');
  });

  test('update changes only what the patch names; null clears secret and inChargeId', async () => {
    const { store, clock } = await backend.fresh();
    const owner = await addPerson(store);
    const other = await addPerson(store);
    const made = await addDesktop(store, owner.id, 'Desk', 'v1.old');
    clock.now += 1000;
    const charged = await store.desktops.update(made.id, { inChargeId: other.id });
    expect(charged).toEqual({ ...made, inChargeId: other.id, updatedAt: clock.now });
    const changed = await store.desktops.update(made.id, {
      params: { host: 'other.example', port: 3390 },
      secret: null,
      ownerId: other.id,
      inChargeId: null,
    });
    expect(changed).toMatchObject({
      name: 'Desk',
      params: { host: 'other.example', port: 3390 },
      secret: null,
      ownerId: other.id,
      inChargeId: null,
    });
    expect(await store.desktops.byId(made.id)).toEqual(changed);
    expect(await store.desktops.update('dsk_nope', { name: 'x' })).toBeUndefined();
    await expect(store.desktops.update(made.id, { ownerId: 'p_gone' })).rejects.toThrow(
      StoreConflictError,
    );
  });

  test('grants: upsert, per desktop and per person, remove', async () => {
    const { store, clock } = await backend.fresh();
    const owner = await addPerson(store);
    const viewer = await addPerson(store);
    const a = await addDesktop(store, owner.id, 'A');
    const b = await addDesktop(store, owner.id, 'B');
    await store.desktops.setGrant(a.id, viewer.id, 'view');
    clock.now += 5;
    await store.desktops.setGrant(b.id, viewer.id, 'control');
    await store.desktops.setGrant(a.id, owner.id, 'control');
    expect(await store.desktops.grants(a.id)).toEqual([
      { desktopId: a.id, personId: viewer.id, level: 'view', createdAt: clock.now - 5 },
      { desktopId: a.id, personId: owner.id, level: 'control', createdAt: clock.now },
    ]);
    // Upsert: the level changes, the grant keeps its time.
    await store.desktops.setGrant(a.id, viewer.id, 'control');
    expect(await store.desktops.grantsForPerson(viewer.id)).toEqual([
      { desktopId: a.id, personId: viewer.id, level: 'control', createdAt: clock.now - 5 },
      { desktopId: b.id, personId: viewer.id, level: 'control', createdAt: clock.now },
    ]);
    expect(await store.desktops.removeGrant(a.id, viewer.id)).toBe(true);
    expect(await store.desktops.removeGrant(a.id, viewer.id)).toBe(false);
    expect((await store.desktops.grantsForPerson(viewer.id)).map((g) => g.desktopId)).toEqual([
      b.id,
    ]);
    await expect(store.desktops.setGrant(a.id, 'p_gone', 'view')).rejects.toThrow(
      StoreConflictError,
    );
    await expect(store.desktops.setGrant('dsk_gone', viewer.id, 'view')).rejects.toThrow(
      StoreConflictError,
    );
  });

  test('removing a desktop removes its grants; removing a person their desktops, grants and charge', async () => {
    const { store } = await backend.fresh();
    const owner = await addPerson(store);
    const helper = await addPerson(store);
    const a = await addDesktop(store, owner.id, 'A');
    const b = await addDesktop(store, helper.id, 'B');
    await store.desktops.setGrant(a.id, helper.id, 'control');
    await store.desktops.setGrant(b.id, owner.id, 'view');
    await store.desktops.update(a.id, { inChargeId: helper.id });
    expect(await store.desktops.remove(b.id)).toBe(true);
    expect(await store.desktops.remove(b.id)).toBe(false);
    expect(await store.desktops.grantsForPerson(owner.id)).toEqual([]);

    await store.people.remove(helper.id);
    // In charge falls back to the owner; the helper's grant is gone.
    expect((await store.desktops.byId(a.id))?.inChargeId).toBeNull();
    expect(await store.desktops.grants(a.id)).toEqual([]);
    await store.people.remove(owner.id);
    expect(await store.desktops.list()).toEqual([]);
  });

  test('desktops and grants survive a restart', async () => {
    const fixture = await backend.fresh();
    const owner = await addPerson(fixture.store);
    const other = await addPerson(fixture.store);
    const made = await addDesktop(fixture.store, owner.id, 'Kept', 'v1.x.y');
    await fixture.store.desktops.setGrant(made.id, other.id, 'view');
    const store = await fixture.restart();
    expect(await store.desktops.byId(made.id)).toEqual(made);
    expect(await store.desktops.grants(made.id)).toMatchObject([{ personId: other.id }]);
  });

  test('tokens keep the desktops they name; null or absent means all', async () => {
    const { store, clock } = await backend.fresh();
    const person = await addPerson(store);
    const base = {
      personId: person.id,
      hint: 'oc_1234',
      createdAt: clock.now,
      expiresAt: null,
    };
    const some = await store.tokens.create({
      ...base,
      id: 'tok_some',
      name: 'some',
      tokenHash: 'h-some',
      desktopIds: ['dsk_a', 'dsk_b'],
    });
    expect(some.desktopIds).toEqual(['dsk_a', 'dsk_b']);
    expect((await store.tokens.byHash('h-some'))?.desktopIds).toEqual(['dsk_a', 'dsk_b']);
    await store.tokens.create({ ...base, id: 'tok_all', name: 'all', tokenHash: 'h-all' });
    await store.tokens.create({
      ...base,
      id: 'tok_null',
      name: 'null',
      tokenHash: 'h-null',
      desktopIds: null,
    });
    expect((await store.tokens.byId('tok_all'))?.desktopIds).toBeNull();
    expect((await store.tokens.byId('tok_null'))?.desktopIds).toBeNull();
  });
}
