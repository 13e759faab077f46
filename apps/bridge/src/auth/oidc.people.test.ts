// Which person an OpenID Connect sign-in reaches, through whole flows against a real OpenID
// Provider (npm oidc-provider) and a real bridge: the linked identity first (even after the
// email changed at the provider), else the person whose username is the provider's verified
// email (linked from then on) — never by an unverified email —, else a new member only with
// OC_OIDC_AUTO_CREATE=1; disabled people are refused and not linked. Also a public client (PKCE
// its only proof) and a provider that takes client_secret_post only.
import { API, type Me } from '@overlay-companion/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PersonRecord } from '../store/types.js';
import { FetchBrowser } from './testing/fetchBrowser.js';
import type { TestAccount } from './testing/oidcProvider.js';
import { callback, startOidcStack, throughProvider, type OidcStack } from './testing/oidcStack.js';

const account = (sub: string, extra: Partial<TestAccount> = {}): TestAccount => ({
  sub,
  password: `${sub}-provider-password`,
  ...extra,
});

const BOB = account('bob-sub', { email: 'bob@example.org', emailVerified: true, name: 'Bob' });
const CAROL = account('carol-sub', { email: 'carol@example.org', emailVerified: false });
const DAN = account('dan-sub', { email: 'dan@example.org', emailVerified: true });
const ERIN = account('erin-sub', { email: 'erin@example.org', emailVerified: true });
const FRANK = account('frank-sub', { email: 'frank@example.org', emailVerified: true });
const GINA = account('gina sub/2', {
  email: 'gina@example.org',
  emailVerified: false,
  name: 'Gina\u0007 G.',
  preferredUsername: 'gina',
});
const HAL = account('hal-sub', {
  email: 'hal@example.org',
  emailVerified: true,
  name: 'Hal',
  preferredUsername: 'hal9000',
});

/** One whole flow in a fresh browser: the callback's answer and who it signed in, if anyone. */
async function signInAs(
  stack: OidcStack,
  who: TestAccount,
): Promise<{ status: number; body: string; me: Me | undefined }> {
  const browser = new FetchBrowser();
  const answer = await callback(stack, browser, await throughProvider(stack, browser, who));
  if (answer.sessionCookie === undefined)
    return { status: answer.status, body: answer.body, me: undefined };
  const me = await fetch(new URL(API.me, stack.bridgeUrl), {
    headers: { cookie: `${stack.fixture.access.cookie.name}=${answer.sessionCookie}` },
  });
  return { status: answer.status, body: answer.body, me: (await me.json()) as Me };
}

async function addPerson(stack: OidcStack, username: string): Promise<PersonRecord> {
  return stack.fixture.store.people.add({
    username,
    displayName: username,
    passwordHash: null,
    role: 'member',
  });
}

describe('without OC_OIDC_AUTO_CREATE', () => {
  let stack: OidcStack;
  beforeAll(async () => {
    stack = await startOidcStack({ accounts: [BOB, CAROL, DAN, ERIN, FRANK] });
  });
  afterAll(async () => {
    await stack?.close();
  });

  it('links the person whose username is the verified email, and keeps them linked', async () => {
    const bob = await addPerson(stack, 'Bob@Example.org');
    const first = await signInAs(stack, BOB);
    expect(first.me?.person.id).toBe(bob.id);
    expect(first.me?.person.oidc_linked).toBe(true);
    expect(await stack.fixture.store.people.byId(bob.id)).toMatchObject({
      oidcIssuer: stack.idp.issuer,
      oidcSubject: BOB.sub,
    });
    // The provider changes Bob's email: the link (issuer + subject) still finds him.
    BOB.email = 'robert@example.org';
    expect((await signInAs(stack, BOB)).me?.person.id).toBe(bob.id);
    await stack.fixture.access.audit.flush();
    const entries = await stack.fixture.store.audit.query({ personId: bob.id, limit: 10 });
    expect(entries.filter((e) => e.kind === 'sign_in').map((e) => e.detail)).toEqual([
      expect.stringMatching(/^oidc from /),
      expect.stringMatching(/^oidc from /),
    ]);
    expect(entries.filter((e) => e.kind === 'person_changed')).toHaveLength(1);
  });

  it('does not match or link by an unverified email', async () => {
    const carol = await addPerson(stack, CAROL.email ?? '');
    const answer = await signInAs(stack, CAROL);
    expect(answer.status).toBe(403);
    expect(answer.me).toBeUndefined();
    expect(answer.body).toContain('did not confirm your email address');
    expect((await stack.fixture.store.people.byId(carol.id))?.oidcSubject).toBeNull();
  });

  it('refuses someone unknown and says whom to ask for what', async () => {
    const answer = await signInAs(stack, DAN);
    expect(answer.status).toBe(403);
    expect(answer.body).toContain(
      'not known here. Ask an admin to add you with the username &#34;dan@example.org&#34;.',
    );
    expect(await stack.fixture.store.people.byUsername('dan@example.org')).toBeUndefined();
  });

  it('refuses a disabled person, linked or not, and does not link them', async () => {
    const erin = await addPerson(stack, ERIN.email ?? '');
    await stack.fixture.store.people.update(erin.id, { disabled: true });
    const unlinked = await signInAs(stack, ERIN);
    expect(unlinked.status).toBe(403);
    expect(unlinked.body).toContain('This account is disabled here.');
    expect((await stack.fixture.store.people.byId(erin.id))?.oidcSubject).toBeNull();

    const frank = await addPerson(stack, FRANK.email ?? '');
    expect((await signInAs(stack, FRANK)).me?.person.id).toBe(frank.id);
    await stack.fixture.store.people.update(frank.id, { disabled: true });
    const linked = await signInAs(stack, FRANK);
    expect(linked.status).toBe(403);
    expect(linked.body).toContain('This account is disabled here.');
  });

  it('never takes over a person already linked to another identity', async () => {
    const taken = await addPerson(stack, 'dan@example.org');
    await stack.fixture.store.people.update(taken.id, {
      oidcIssuer: 'https://other-idp.example.org/',
      oidcSubject: 'someone-else',
    });
    const answer = await signInAs(stack, DAN);
    expect(answer.status).toBe(403);
    expect(answer.body).toContain('already linked to another identity-provider account');
    expect((await stack.fixture.store.people.byId(taken.id))?.oidcSubject).toBe('someone-else');
  });
});

describe('with OC_OIDC_AUTO_CREATE=1', () => {
  let stack: OidcStack;
  beforeAll(async () => {
    stack = await startOidcStack({
      accounts: [GINA, HAL],
      env: { OC_OIDC_AUTO_CREATE: '1' },
    });
  });
  afterAll(async () => {
    await stack?.close();
  });

  it('creates a member named by the verified email, linked, and audits it', async () => {
    const answer = await signInAs(stack, HAL);
    expect(answer.me?.person).toMatchObject({
      username: 'hal@example.org',
      display_name: 'Hal',
      role: 'member',
      oidc_linked: true,
      has_password: false,
    });
    expect((await signInAs(stack, HAL)).me?.person.id).toBe(answer.me?.person.id);
    await stack.fixture.access.audit.flush();
    const added = await stack.fixture.store.audit.query({ kind: 'person_added', limit: 10 });
    expect(added.map((e) => e.personId)).toEqual([answer.me?.person.id]);
  });

  it('never names or links a new member by an unverified email', async () => {
    // Someone already holds the unverified address as a username.
    const holder = await addPerson(stack, GINA.email ?? '');
    const answer = await signInAs(stack, GINA);
    expect(answer.me?.person.id).not.toBe(holder.id);
    expect(answer.me?.person).toMatchObject({
      username: 'gina',
      display_name: 'Gina  G.',
      role: 'member',
    });
    expect((await stack.fixture.store.people.byId(holder.id))?.oidcSubject).toBeNull();
  });
});

describe('client kinds', () => {
  it('signs in as a public client (no secret: PKCE is its only proof)', async () => {
    const ivy = account('ivy-sub', { email: 'ivy@example.org', emailVerified: true });
    const stack = await startOidcStack({ accounts: [ivy], publicClient: true });
    try {
      const person = await addPerson(stack, 'ivy@example.org');
      expect((await signInAs(stack, ivy)).me?.person.id).toBe(person.id);
      expect(stack.idp.tokenRequests).toEqual([{ basic: false }]);
    } finally {
      await stack.close();
    }
  });

  it('authenticates with client_secret_basic, the registration default', async () => {
    const kim = account('kim-sub', { email: 'kim@example.org', emailVerified: true });
    const stack = await startOidcStack({ accounts: [kim] });
    try {
      const person = await addPerson(stack, 'kim@example.org');
      expect((await signInAs(stack, kim)).me?.person.id).toBe(person.id);
      expect(stack.idp.tokenRequests).toEqual([{ basic: true }]);
    } finally {
      await stack.close();
    }
  });

  it('uses client_secret_post with a provider that announces only that', async () => {
    const jo = account('jo-sub', { email: 'jo@example.org', emailVerified: true });
    const stack = await startOidcStack({
      accounts: [jo],
      clientAuthMethods: ['client_secret_post'],
    });
    try {
      const person = await addPerson(stack, 'jo@example.org');
      expect((await signInAs(stack, jo)).me?.person.id).toBe(person.id);
      // The client has a secret, so a request without Basic carried it in the body.
      expect(stack.idp.tokenRequests).toEqual([{ basic: false }]);
    } finally {
      await stack.close();
    }
  });
});
