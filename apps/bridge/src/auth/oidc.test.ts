// OpenID Connect sign-in at the HTTP level, against a real OpenID Provider (npm oidc-provider)
// and a real bridge: discovery, a whole authorization code flow driven through the provider's
// login and consent pages, and each check that keeps the flow honest — PKCE (S256), state, nonce,
// one use per flow, the flow bound to the browser that started it, `next` never leaving the
// bridge, errors that say what to do, and nothing secret in the bridge's log.
import { API, type Me } from '@overlay-companion/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OidcSignIn } from './oidc.js';
import { FetchBrowser } from './testing/fetchBrowser.js';
import {
  callback,
  CLIENT_SECRET,
  LABEL,
  startOidcStack,
  throughProvider,
  type OidcStack,
} from './testing/oidcStack.js';

const ALICE = {
  sub: 'alice-sub-1',
  password: 'alice-provider-password',
  email: 'alice@example.org',
  emailVerified: true,
  name: 'Alice Example',
};

let stack: OidcStack;

beforeAll(async () => {
  stack = await startOidcStack({ accounts: [ALICE] });
  await stack.fixture.store.people.add({
    username: ALICE.email,
    displayName: 'Alice',
    passwordHash: null,
    role: 'member',
  });
});

afterAll(async () => {
  await stack?.close();
});

async function me(cookie: string): Promise<Response> {
  return fetch(new URL(API.me, stack.bridgeUrl), {
    headers: { cookie: `${stack.fixture.access.cookie.name}=${cookie}` },
  });
}

describe('discovery and the start of a flow', () => {
  it('offers the provider on the sign-in page', async () => {
    const state = await fetch(new URL(API.authState, stack.bridgeUrl));
    expect(await state.json()).toMatchObject({ oidc: { label: LABEL } });
  });

  it('sends the browser to the provider with PKCE S256, state, nonce and the registered callback', async () => {
    const browser = new FetchBrowser();
    const answer = await fetch(new URL(`${API.oidcStart}?next=%2Fconfig`, stack.bridgeUrl), {
      redirect: 'manual',
    });
    expect(answer.status).toBe(302);
    const to = new URL(answer.headers.get('location') ?? '');
    expect(to.origin).toBe(stack.idp.issuer);
    const params = Object.fromEntries(to.searchParams);
    expect(params).toMatchObject({
      response_type: 'code',
      client_id: 'overlay-companion',
      redirect_uri: new URL(API.oidcCallback, stack.bridgeUrl).href,
      scope: 'openid profile email',
      code_challenge_method: 'S256',
    });
    expect(params.code_challenge).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(params.state?.length).toBeGreaterThanOrEqual(32);
    expect(params.nonce?.length).toBeGreaterThanOrEqual(32);
    const cookie = answer.headers.getSetCookie().find((c) => c.startsWith('oc_oidc_flow='));
    expect(cookie).toMatch(/HttpOnly/i);
    expect(cookie).toMatch(/SameSite=Lax/i);
    expect(cookie).toMatch(/Path=\/api\/auth\/oidc;/);
    expect(browser.cookieValues()).toEqual([]);
  });

  it('says the provider cannot be reached, and asks it again next time', async () => {
    const down = new OidcSignIn(
      { ...stack.oidc.config, issuer: new URL('http://127.0.0.1:9/') },
      stack.fixture.store,
      () => new URL(API.oidcCallback, stack.bridgeUrl).href,
    );
    await expect(down.start('/')).rejects.toThrow();
    await expect(down.start('/')).rejects.toThrow();
  });
});

describe('a whole flow', () => {
  it('signs the person in and moves on to `next` with the session cookie', async () => {
    const browser = new FetchBrowser();
    const back = await throughProvider(stack, browser, ALICE, { next: '/config?tab=tokens' });
    expect(back.searchParams.get('code')).not.toBeNull();
    expect(back.searchParams.get('iss')).toBe(stack.idp.issuer);
    const answer = await callback(stack, browser, back);
    expect(answer.status).toBe(200);
    expect(answer.body).toContain('<meta http-equiv="refresh" content="0;url=/config?tab=tokens">');
    expect(answer.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
    const set = answer.headers.getSetCookie().find((c) => c.startsWith('oc_session='));
    expect(set).toMatch(/HttpOnly/i);
    expect(set).toMatch(/SameSite=Strict/i);
    const who = (await (await me(answer.sessionCookie ?? '')).json()) as Me;
    expect(who.person.username).toBe(ALICE.email);
    expect(who.session.method).toBe('oidc');
  });

  it('names the registered callback to the provider, whatever address the callback came in on', async () => {
    // Behind a reverse proxy the bridge sees its internal address, not the registered one (the
    // token request must repeat the registered redirect_uri exactly). Here 127.0.0.1 is
    // registered and the callback arrives on localhost.
    const browser = new FetchBrowser();
    const back = await throughProvider(stack, browser, ALICE);
    const internal = new URL(back);
    internal.hostname = 'localhost';
    const answer = await fetch(internal, {
      headers: { cookie: `oc_oidc_flow=${browser.cookie('127.0.0.1', 'oc_oidc_flow') ?? ''}` },
    });
    expect(answer.status).toBe(200);
    expect(answer.headers.getSetCookie().some((c) => c.startsWith('oc_session='))).toBe(true);
  });

  it('finishes sign-ins started in two tabs of one browser', async () => {
    const browser = new FetchBrowser();
    const first = await throughProvider(stack, browser, ALICE);
    const second = await throughProvider(stack, browser, ALICE);
    expect((await callback(stack, browser, second)).sessionCookie).toBeDefined();
    expect((await callback(stack, browser, first)).sessionCookie).toBeDefined();
  });

  it('never redirects off the bridge', async () => {
    for (const next of ['//evil.example/', 'https://evil.example/', '/\\evil.example']) {
      const browser = new FetchBrowser();
      const answer = await callback(
        stack,
        browser,
        await throughProvider(stack, browser, ALICE, { next }),
      );
      expect(answer.body).toContain('content="0;url=/"');
    }
  });
});

describe('what a callback must prove', () => {
  it('refuses a wrong state, and the genuine callback still works', async () => {
    const browser = new FetchBrowser();
    const back = await throughProvider(stack, browser, ALICE);
    const forged = new URL(back);
    forged.searchParams.set('state', 'not-the-state-0123456789abcdefghijklmnop');
    const refused = await callback(stack, browser, forged);
    expect(refused.status).toBe(403);
    expect(refused.body).toContain(
      'expired or was already used. Start again from the sign-in page.',
    );
    expect(refused.sessionCookie).toBeUndefined();
    expect((await callback(stack, browser, back)).sessionCookie).toBeDefined();
  });

  it('refuses a replayed callback', async () => {
    const browser = new FetchBrowser();
    const back = await throughProvider(stack, browser, ALICE);
    expect((await callback(stack, browser, back)).status).toBe(200);
    const again = await callback(stack, browser, back);
    expect(again.status).toBe(403);
    expect(again.body).toContain('expired or was already used');
    expect(again.sessionCookie).toBeUndefined();
  });

  it('refuses a callback in a browser that did not start the flow (login CSRF), and uses the flow up', async () => {
    const attacker = new FetchBrowser();
    const back = await throughProvider(stack, attacker, ALICE);
    const victim = new FetchBrowser();
    const refused = await callback(stack, victim, back);
    expect(refused.status).toBe(403);
    expect(refused.body).toContain('started in another browser');
    expect(refused.sessionCookie).toBeUndefined();
    expect((await callback(stack, attacker, back)).status).toBe(403);
  });

  it('sends the PKCE verifier: a code issued for another challenge is refused', async () => {
    const browser = new FetchBrowser();
    const back = await throughProvider(stack, browser, ALICE, {
      tamper: (url) => {
        const swapped = new URL(url);
        // The challenge of a verifier the bridge never made.
        swapped.searchParams.set('code_challenge', 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM');
        return swapped;
      },
    });
    const refused = await callback(stack, browser, back);
    expect(refused.status).toBe(403);
    expect(refused.body).toMatch(/could not be verified \(the provider answered invalid_grant/);
    expect(refused.sessionCookie).toBeUndefined();
  });

  it('checks the nonce: an ID token made for another nonce is refused', async () => {
    const browser = new FetchBrowser();
    const back = await throughProvider(stack, browser, ALICE, {
      tamper: (url) => {
        const swapped = new URL(url);
        swapped.searchParams.set('nonce', 'someone-elses-nonce-0123456789abcdefghij');
        return swapped;
      },
    });
    const refused = await callback(stack, browser, back);
    expect(refused.status).toBe(403);
    expect(refused.body).toMatch(/could not be verified \(.*nonce/);
    expect(refused.sessionCookie).toBeUndefined();
  });

  it('says so when the person cancels at the provider', async () => {
    const browser = new FetchBrowser();
    const toProvider = await browser.navigate(new URL(API.oidcStart, stack.bridgeUrl), {
      stopBefore: (url) => url.pathname.startsWith('/interaction/'),
    });
    const back = await browser.navigate(
      new URL(`${toProvider.url.pathname}/abort`, toProvider.url),
      {
        stopBefore: (url) => url.pathname === API.oidcCallback,
      },
    );
    expect(back.url.searchParams.get('error')).toBe('access_denied');
    const answer = await callback(stack, browser, back.url);
    expect(answer.status).toBe(403);
    expect(answer.body).toContain('cancelled at the identity provider. Start again');
  });

  it('records refusals in the audit log, and keeps secrets out of the log', async () => {
    await stack.fixture.access.audit.flush();
    const failed = await stack.fixture.store.audit.query({ kind: 'sign_in_failed', limit: 50 });
    expect(failed.some((e) => e.detail?.startsWith('oidc: '))).toBe(true);
    const logs = stack.logs();
    expect(logs).not.toContain(CLIENT_SECRET);
    expect(logs).not.toContain(ALICE.password);
    expect(logs).not.toMatch(/code=|state=|nonce=|code_verifier/);
  });
});
