// Storage suite, sign-in sessions and API tokens: create/lookup/touch/remove, ending a person's
// sessions, expiry, token listing and revocation, and the conflicts both tables can raise.
import { expect, test } from 'vitest';
import { StoreConflictError, type WebSessionRecord } from '../../types.js';
import { addPerson, type Backend } from '../fixture.js';

function session(personId: string, idHash: string, at: number): WebSessionRecord {
  return {
    idHash,
    personId,
    csrfToken: `csrf-${idHash}`,
    method: 'password',
    createdAt: at,
    lastSeenAt: at,
    expiresAt: at + 60_000,
    source: '127.0.0.1',
  };
}

function token(personId: string, id: string, createdAt: number) {
  return {
    id,
    personId,
    name: `token ${id}`,
    tokenHash: `hash-${id}`,
    hint: 'oc_1234',
    createdAt,
    expiresAt: null,
  };
}

export function sessionsAndTokensSuite(backend: Backend): void {
  test('sessions: create, look up by hash, touch, remove', async () => {
    const { store, clock } = await backend.fresh();
    const person = await addPerson(store);
    const record = { ...session(person.id, 'h1', clock.now), method: 'oidc' as const };
    await store.sessions.create(record);
    expect(await store.sessions.byIdHash('h1')).toEqual(record);
    expect(await store.sessions.byIdHash('h2')).toBeUndefined();
    await store.sessions.touch('h1', clock.now + 500);
    expect(await store.sessions.byIdHash('h1')).toEqual({ ...record, lastSeenAt: clock.now + 500 });
    expect(await store.sessions.remove('h1')).toBe(true);
    expect(await store.sessions.remove('h1')).toBe(false);
    expect(await store.sessions.byIdHash('h1')).toBeUndefined();
  });

  test('sessions: a duplicate id or an unknown person is a conflict', async () => {
    const { store, clock } = await backend.fresh();
    const person = await addPerson(store);
    await store.sessions.create(session(person.id, 'h1', clock.now));
    await expect(store.sessions.create(session(person.id, 'h1', clock.now))).rejects.toThrow(
      StoreConflictError,
    );
    // Foreign keys are enforced (SQLite needs them switched on per connection).
    await expect(store.sessions.create(session('p_gone', 'h2', clock.now))).rejects.toThrow(
      /no person with id "p_gone"/,
    );
  });

  test('sessions: removeForPerson ends all of one person’s sessions but the one kept', async () => {
    const { store, clock } = await backend.fresh();
    const person = await addPerson(store);
    const other = await addPerson(store);
    for (const hash of ['a', 'b', 'c']) await store.sessions.create(session(person.id, hash, 1));
    await store.sessions.create(session(other.id, 'o', clock.now));
    expect((await store.sessions.removeForPerson(person.id, 'b')).sort()).toEqual(['a', 'c']);
    expect(await store.sessions.byIdHash('b')).toBeDefined();
    expect(await store.sessions.removeForPerson(person.id)).toEqual(['b']);
    expect(await store.sessions.removeForPerson(person.id)).toEqual([]);
    expect(await store.sessions.byIdHash('o')).toBeDefined();
  });

  test('sessions: removeExpired deletes those past absolute expiry or idle too long', async () => {
    const { store } = await backend.fresh();
    const person = await addPerson(store);
    const base = session(person.id, '', 0);
    await store.sessions.create({ ...base, idHash: 'fresh', lastSeenAt: 900, expiresAt: 2_000 });
    await store.sessions.create({
      ...base,
      idHash: 'at-expiry',
      lastSeenAt: 900,
      expiresAt: 1_000,
    });
    await store.sessions.create({ ...base, idHash: 'idle', lastSeenAt: 499, expiresAt: 2_000 });
    await store.sessions.create({
      ...base,
      idHash: 'idle-edge',
      lastSeenAt: 500,
      expiresAt: 2_000,
    });
    const removed = await store.sessions.removeExpired(1_000, 500);
    expect(removed.sort()).toEqual(['at-expiry', 'idle']);
    expect(await store.sessions.byIdHash('fresh')).toBeDefined();
    expect(await store.sessions.byIdHash('idle-edge')).toBeDefined();
  });

  test('tokens: create, look up by hash and id, touch', async () => {
    const { store, clock } = await backend.fresh();
    const person = await addPerson(store);
    const created = await store.tokens.create({
      ...token(person.id, 'tok_1', clock.now),
      expiresAt: 9,
    });
    const expected = {
      ...token(person.id, 'tok_1', clock.now),
      expiresAt: 9,
      lastUsedAt: null,
      revokedAt: null,
      desktopIds: null,
    };
    expect(created).toEqual(expected);
    expect(await store.tokens.byHash('hash-tok_1')).toEqual(expected);
    expect(await store.tokens.byId('tok_1')).toEqual(expected);
    expect(await store.tokens.byHash('hash-tok_2')).toBeUndefined();
    expect(await store.tokens.byId('tok_2')).toBeUndefined();
    await store.tokens.touch('tok_1', clock.now + 7);
    expect(await store.tokens.byId('tok_1')).toEqual({ ...expected, lastUsedAt: clock.now + 7 });
  });

  test('tokens: listForPerson is newest first, revoked included, others excluded', async () => {
    const { store } = await backend.fresh();
    const person = await addPerson(store);
    const other = await addPerson(store);
    await store.tokens.create(token(person.id, 'tok_old', 100));
    await store.tokens.create(token(person.id, 'tok_new', 300));
    await store.tokens.create(token(person.id, 'tok_mid', 200));
    await store.tokens.create(token(other.id, 'tok_other', 400));
    await store.tokens.revoke('tok_mid', person.id, 250);
    const listed = await store.tokens.listForPerson(person.id);
    expect(listed.map((t) => t.id)).toEqual(['tok_new', 'tok_mid', 'tok_old']);
    expect(listed[1]?.revokedAt).toBe(250);
  });

  test('tokens: revoke only by the owner, once; the first time stays', async () => {
    const { store } = await backend.fresh();
    const person = await addPerson(store);
    const other = await addPerson(store);
    await store.tokens.create(token(person.id, 'tok_1', 100));
    expect(await store.tokens.revoke('tok_1', other.id, 150)).toBe(false);
    expect((await store.tokens.byId('tok_1'))?.revokedAt).toBeNull();
    expect(await store.tokens.revoke('tok_1', person.id, 200)).toBe(true);
    expect(await store.tokens.revoke('tok_1', person.id, 300)).toBe(true);
    expect((await store.tokens.byHash('hash-tok_1'))?.revokedAt).toBe(200);
    expect(await store.tokens.revoke('tok_nope', person.id, 300)).toBe(false);
  });

  test('tokens: a duplicate hash is a conflict whose message does not quote the hash', async () => {
    const { store } = await backend.fresh();
    const person = await addPerson(store);
    await store.tokens.create(token(person.id, 'tok_1', 100));
    const duplicate = store.tokens.create({
      ...token(person.id, 'tok_2', 100),
      tokenHash: 'hash-tok_1',
    });
    await expect(duplicate).rejects.toThrow(StoreConflictError);
    await expect(duplicate).rejects.not.toThrow(/hash-tok_1/);
    await expect(store.tokens.create(token('p_gone', 'tok_3', 1))).rejects.toThrow(
      StoreConflictError,
    );
  });
}
