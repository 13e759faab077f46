// The token lookup cache every /mcp request goes through (apiTokens.ts), against a real SQLite
// store with a clock the test moves: a cached lookup must never outlive a revocation made here
// or told by the site, nor the token's expiry, nor its person being disabled; and a cache entry
// is one token's, never another's (another person's token finds its own person).
import { describe, expect, it } from 'vitest';
import { backend, addPerson } from '../store/testing/fixture.js';
import { newId } from '../store/ids.js';
import type { Store } from '../store/types.js';
import { ApiTokenAuth, CACHE_MS, generateApiToken, tokenHint } from './apiTokens.js';
import { sha256Hex } from './secrets.js';

const sqlite = backend('sqlite', () => Promise.resolve(undefined));

async function mint(store: Store, personId: string, expiresAt: number | null = null) {
  const token = generateApiToken();
  const record = await store.tokens.create({
    id: newId('tok'),
    personId,
    name: `token of ${personId}`,
    tokenHash: sha256Hex(token),
    hint: tokenHint(token),
    createdAt: 0,
    expiresAt,
  });
  return { token, record, header: `Bearer ${token}` };
}

async function setUp() {
  const { store } = await sqlite.fresh();
  const clock = { now: 1_700_000_000_000 };
  const auth = new ApiTokenAuth(store, undefined, () => clock.now);
  const person = await addPerson(store, { displayName: 'Ada' });
  return { store, clock, auth, person };
}

describe('token lookup cache', () => {
  it('answers a repeated lookup from the cache, without the store', async () => {
    const { store, auth, person } = await setUp();
    const { header } = await mint(store, person.id);
    expect((await auth.authenticate(header)).ok).toBe(true);
    let asked = 0;
    const byHash = store.tokens.byHash.bind(store.tokens);
    store.tokens.byHash = (hash) => {
      asked += 1;
      return byHash(hash);
    };
    expect((await auth.authenticate(header)).ok).toBe(true);
    expect(asked).toBe(0);
  });

  it('refuses the next call after a revocation here, within the cache time', async () => {
    const { store, clock, auth, person } = await setUp();
    const { header, record } = await mint(store, person.id);
    expect((await auth.authenticate(header)).ok).toBe(true);
    await store.tokens.revoke(record.id, person.id, clock.now);
    await auth.invalidate({ tokenId: record.id });
    clock.now += 1;
    const check = await auth.authenticate(header);
    expect(check.ok).toBe(false);
    expect(!check.ok && check.message).toMatch(/revoked/);
  });

  it('refuses the next call after a revocation another bridge of the site told', async () => {
    const { store, clock, auth, person } = await setUp();
    const told: unknown[] = [];
    auth.onInvalidated((match) => {
      told.push(match);
      return Promise.resolve();
    });
    const { header, record } = await mint(store, person.id);
    expect((await auth.authenticate(header)).ok).toBe(true);
    await store.tokens.revoke(record.id, person.id, clock.now);
    // Told by the site: applied here, not told back.
    await auth.invalidate({ tokenId: record.id }, 'site');
    expect(told).toEqual([]);
    expect((await auth.authenticate(header)).ok).toBe(false);
  });

  it('refuses a token that expired after it was cached, before the cache time ran out', async () => {
    const { store, clock, auth, person } = await setUp();
    const { header } = await mint(store, person.id, clock.now + 100);
    expect((await auth.authenticate(header)).ok).toBe(true);
    clock.now += 101;
    expect(clock.now - 101 + CACHE_MS).toBeGreaterThan(clock.now);
    const check = await auth.authenticate(header);
    expect(check.ok).toBe(false);
    expect(!check.ok && check.message).toMatch(/expired/);
  });

  it("refuses the next call once the token's person is disabled", async () => {
    const { store, auth, person } = await setUp();
    const { header } = await mint(store, person.id);
    expect((await auth.authenticate(header)).ok).toBe(true);
    await store.people.update(person.id, { disabled: true });
    await auth.invalidate({ personId: person.id });
    expect((await auth.authenticate(header)).ok).toBe(false);
  });

  it("gives each token its own person: another person's token never gets a cached principal", async () => {
    const { store, auth, person } = await setUp();
    const other = await addPerson(store, { displayName: 'Grace' });
    const mine = await mint(store, person.id);
    const theirs = await mint(store, other.id);
    const first = await auth.authenticate(mine.header);
    const second = await auth.authenticate(theirs.header);
    const again = await auth.authenticate(mine.header);
    expect(first.ok && first.principal.personName).toBe('Ada');
    expect(second.ok && second.principal.personName).toBe('Grace');
    expect(second.ok && second.principal.tokenId).toBe(theirs.record.id);
    expect(again.ok && again.principal.tokenId).toBe(mine.record.id);
    // Revoking one person's token leaves the other's alone.
    await store.tokens.revoke(theirs.record.id, other.id, 1);
    await auth.invalidate({ tokenId: theirs.record.id });
    expect((await auth.authenticate(theirs.header)).ok).toBe(false);
    expect((await auth.authenticate(mine.header)).ok).toBe(true);
  });
});
