// Storage suite, what must hold whatever the data: SQL-injection strings are stored and read
// back verbatim (values are bound, never spliced into SQL), and everything survives a restart.
import { expect, test } from 'vitest';
import { PERMISSION_DEFAULTS } from '@overlay-companion/protocol';
import { INJECTION_STRINGS, addPerson, type Backend } from '../fixture.js';

export function integritySuite(backend: Backend): void {
  test('SQL-injection strings are stored and read back verbatim in every field', async () => {
    const { store, clock } = await backend.fresh();
    for (const [i, evil] of INJECTION_STRINGS.entries()) {
      // Usernames are lower-cased; these strings are already lower-case where it matters.
      const person = await store.people.add({
        username: evil.toLowerCase(),
        displayName: evil,
        passwordHash: evil,
        role: 'member',
        oidcIssuer: evil,
        oidcSubject: evil,
      });
      expect(await store.people.byUsername(evil)).toEqual(person);
      expect(await store.people.byOidc(evil, evil)).toEqual(person);
      expect(person).toMatchObject({ displayName: evil, passwordHash: evil });

      const token = await store.tokens.create({
        id: `tok_${i}`,
        personId: person.id,
        name: evil,
        tokenHash: `${evil}#${i}`,
        hint: evil,
        createdAt: clock.now,
        expiresAt: null,
      });
      expect(await store.tokens.byHash(`${evil}#${i}`)).toEqual(token);
      expect(token).toMatchObject({ name: evil, hint: evil });

      await store.settings.set(evil, { evil });
      expect(await store.settings.get(evil)).toEqual({ evil });
      await store.layouts.put({ personId: person.id, name: evil, layout: [evil], updatedAt: 1 });
      expect(await store.layouts.list(person.id)).toMatchObject([{ name: evil, layout: [evil] }]);

      const fields = {
        personName: evil,
        tokenName: evil,
        clientName: evil,
        tool: evil,
        summary: evil,
        approvedBy: evil,
        outcome: evil,
        detail: evil,
      };
      const id = await store.audit.append({
        at: i,
        kind: 'tool_call',
        actor: 'ai',
        personId: person.id,
        ...fields,
      });
      const found = await store.audit.query({
        personId: person.id,
        tool: evil,
        outcome: evil,
        limit: 5,
      });
      expect(found).toEqual([expect.objectContaining({ id, ...fields }) as unknown]);
    }
    // Lookups by an injection string match nothing they should not, and every table is intact.
    expect(await store.people.byUsername("x' OR '1'='1")).toBeUndefined();
    expect(await store.people.list()).toHaveLength(INJECTION_STRINGS.length);
    expect(await store.audit.query({ limit: 100 })).toHaveLength(INJECTION_STRINGS.length);
  });

  test('data survives a restart (close and reopen the same database)', async () => {
    const fixture = await backend.fresh();
    const { store, clock } = fixture;
    const person = await addPerson(store, { username: 'Keeper', role: 'admin' });
    await store.sessions.create({
      idHash: 'h1',
      personId: person.id,
      csrfToken: 'c',
      method: 'password',
      createdAt: clock.now,
      lastSeenAt: clock.now,
      expiresAt: clock.now + 1,
      source: null,
    });
    const token = await store.tokens.create({
      id: 'tok_keep',
      personId: person.id,
      name: 'kept',
      tokenHash: 'hash-keep',
      hint: 'oc_k',
      createdAt: clock.now,
      expiresAt: null,
    });
    await store.permissions.update(person.id, { clipboard_read: true });
    await store.settings.set('retention', { days: 30 });
    await store.layouts.put({ personId: person.id, name: 'desk', layout: { a: 1 }, updatedAt: 5 });
    const shot = Buffer.from('not really a png');
    const auditId = await store.audit.append({
      at: clock.now,
      kind: 'token_created',
      actor: 'person',
      personId: person.id,
      personName: person.displayName,
      screenshot: { mimeType: 'image/png', data: shot },
    });

    const reopened = await fixture.restart();
    expect(reopened.kind).toBe(backend.name);
    expect(await reopened.people.byUsername('keeper')).toEqual(person);
    expect(await reopened.sessions.byIdHash('h1')).toMatchObject({ personId: person.id });
    expect(await reopened.tokens.byHash('hash-keep')).toEqual(token);
    expect(await reopened.permissions.get(person.id)).toEqual({
      ...PERMISSION_DEFAULTS,
      clipboard_read: true,
    });
    expect(await reopened.settings.get('retention')).toEqual({ days: 30 });
    expect(await reopened.layouts.list(person.id)).toHaveLength(1);
    expect((await reopened.audit.query({ limit: 5 }))[0]).toMatchObject({ id: auditId });
    expect((await reopened.audit.screenshot(auditId))?.data.equals(shot)).toBe(true);
    // The schema was not applied twice: new rows still go in after the restart.
    const next = {
      at: 1,
      kind: 'stop',
      actor: 'person',
      personId: null,
      personName: null,
    } as const;
    expect(await reopened.audit.append(next)).toBeGreaterThan(auditId);
  });
}
