// Storage suite, people: add/lookups/list/update/remove/countActiveAdmins, case-insensitive
// usernames and their conflicts, OpenID links, and the cascade when a person is removed.
import { expect, test } from 'vitest';
import { StoreConflictError } from '../../types.js';
import { addPerson, type Backend } from '../fixture.js';

export function peopleSuite(backend: Backend): void {
  test('add stores a person (username lower-cased) that every lookup finds', async () => {
    const { store, clock } = await backend.fresh();
    const added = await store.people.add({
      username: 'Alice.Smith@Example.org',
      displayName: 'Alice Smith',
      passwordHash: '$argon2id$hash',
      role: 'admin',
    });
    expect(added).toEqual({
      id: expect.stringMatching(/^p_[A-Za-z0-9_-]{22}$/) as unknown,
      username: 'alice.smith@example.org',
      displayName: 'Alice Smith',
      passwordHash: '$argon2id$hash',
      role: 'admin',
      disabled: false,
      oidcIssuer: null,
      oidcSubject: null,
      createdAt: clock.now,
      updatedAt: clock.now,
    });
    expect(await store.people.byId(added.id)).toEqual(added);
    expect(await store.people.byUsername('ALICE.SMITH@EXAMPLE.ORG')).toEqual(added);
    expect(await store.people.byUsername('alice.smith@example.org')).toEqual(added);
    expect(await store.people.byId('p_nobody')).toBeUndefined();
    expect(await store.people.byUsername('bob')).toBeUndefined();
  });

  test('a username that differs only in case is a conflict; the first person stays', async () => {
    const { store } = await backend.fresh();
    const first = await addPerson(store, { username: 'Alice' });
    const second = addPerson(store, { username: 'aLICE' });
    await expect(second).rejects.toBeInstanceOf(StoreConflictError);
    await expect(second).rejects.toThrow(/"alice" is taken.*choose another/);
    expect(await store.people.list()).toEqual([first]);
  });

  test('byOidc finds the linked person; one OpenID identity links one person only', async () => {
    const { store } = await backend.fresh();
    const issuer = 'https://id.example.org';
    const linked = await addPerson(store, { oidcIssuer: issuer, oidcSubject: 'sub-1' });
    // People without a link (NULL issuer and subject) never collide with each other.
    await addPerson(store);
    await addPerson(store);
    expect(await store.people.byOidc(issuer, 'sub-1')).toEqual(linked);
    expect(await store.people.byOidc(issuer, 'sub-2')).toBeUndefined();
    expect(await store.people.byOidc('https://other.example.org', 'sub-1')).toBeUndefined();
    await expect(addPerson(store, { oidcIssuer: issuer, oidcSubject: 'sub-1' })).rejects.toThrow(
      StoreConflictError,
    );
    const other = await addPerson(store);
    const relink = store.people.update(other.id, { oidcIssuer: issuer, oidcSubject: 'sub-1' });
    await expect(relink).rejects.toThrow(/already linked to another person/);
  });

  test('list is ordered by username', async () => {
    const { store } = await backend.fresh();
    for (const username of ['carol', 'Alice', 'bob']) await addPerson(store, { username });
    expect((await store.people.list()).map((p) => p.username)).toEqual(['alice', 'bob', 'carol']);
  });

  test('update changes only the named fields and bumps updatedAt', async () => {
    const { store, clock } = await backend.fresh();
    const person = await addPerson(store, { displayName: 'Before', role: 'member' });
    clock.now += 5_000;
    const updated = await store.people.update(person.id, {
      displayName: 'After',
      passwordHash: null,
      role: 'admin',
      disabled: true,
    });
    const expected = {
      ...person,
      displayName: 'After',
      passwordHash: null,
      role: 'admin',
      disabled: true,
      updatedAt: clock.now,
    };
    expect(updated).toEqual(expected);
    expect(await store.people.byId(person.id)).toEqual(expected);
    clock.now += 1;
    const linked = await store.people.update(person.id, { oidcIssuer: 'i', oidcSubject: 's' });
    expect(linked).toMatchObject({ displayName: 'After', oidcIssuer: 'i', oidcSubject: 's' });
    expect(await store.people.update('p_nobody', { displayName: 'x' })).toBeUndefined();
  });

  test('countActiveAdmins counts admins that are not disabled', async () => {
    const { store } = await backend.fresh();
    expect(await store.people.countActiveAdmins()).toBe(0);
    const admin = await addPerson(store, { role: 'admin' });
    await addPerson(store, { role: 'admin' });
    await addPerson(store, { role: 'member' });
    expect(await store.people.countActiveAdmins()).toBe(2);
    await store.people.update(admin.id, { disabled: true });
    expect(await store.people.countActiveAdmins()).toBe(1);
  });

  test('remove takes the person with their sessions, tokens, permissions and layouts, not the audit', async () => {
    const { store, clock } = await backend.fresh();
    const person = await addPerson(store);
    const other = await addPerson(store);
    const session = {
      personId: person.id,
      csrfToken: 'csrf',
      method: 'password' as const,
      createdAt: clock.now,
      lastSeenAt: clock.now,
      expiresAt: clock.now + 1_000,
      source: '127.0.0.1',
    };
    await store.sessions.create({ ...session, idHash: 'h-person' });
    await store.sessions.create({ ...session, idHash: 'h-other', personId: other.id });
    const token = {
      name: 't',
      hint: 'oc_ab',
      createdAt: clock.now,
      expiresAt: null,
    };
    await store.tokens.create({ ...token, id: 'tok_p', personId: person.id, tokenHash: 'th-p' });
    await store.tokens.create({ ...token, id: 'tok_o', personId: other.id, tokenHash: 'th-o' });
    await store.permissions.update(person.id, { clipboard_read: true });
    await store.layouts.put({ personId: person.id, name: 'desk', layout: {}, updatedAt: 1 });
    const auditId = await store.audit.append({
      at: clock.now,
      kind: 'sign_in',
      actor: 'person',
      personId: person.id,
      personName: person.displayName,
    });

    expect(await store.people.remove(person.id)).toBe(true);
    expect(await store.people.byId(person.id)).toBeUndefined();
    expect(await store.sessions.byIdHash('h-person')).toBeUndefined();
    expect(await store.tokens.byId('tok_p')).toBeUndefined();
    // A leftover permissions row would still answer clipboard_read: true.
    expect((await store.permissions.get(person.id)).clipboard_read).toBe(false);
    expect(await store.layouts.list(person.id)).toEqual([]);
    const [entry] = await store.audit.query({ personId: person.id, limit: 10 });
    expect(entry).toMatchObject({
      id: auditId,
      personId: person.id,
      personName: person.displayName,
    });
    // Everyone else keeps theirs.
    expect(await store.sessions.byIdHash('h-other')).toBeDefined();
    expect(await store.tokens.byId('tok_o')).toBeDefined();
    expect(await store.people.remove(person.id)).toBe(false);
  });
}
