// OpenID Connect sign-in in a real Chromium (Debian's, through playwright-core) against a real
// OpenID Provider (npm oidc-provider) and a real bridge serving the built web app. The provider
// and the bridge have different host names (127.0.0.1 and localhost), so the provider's
// redirect back is cross-site, as with any real provider: the browser must bring the flow cookie
// (SameSite=Lax) to the callback, and then the session cookie (SameSite=Strict) to the viewer.
// The person opens /signin, clicks "Sign in with …", logs in and consents at the provider, and
// lands signed in on the viewer; the audit log has the sign-in, by OpenID Connect.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { API, PAGES } from '@overlay-companion/protocol';
import { chromium, type Browser, type Page, type Request } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { CHROMIUM_FLAGS, chromiumPath } from '../headless/chromium.js';
import { WEB_ROOT } from '../headless/testing/liveStack.js';
import type { TestAccount } from './testing/oidcProvider.js';
import { LABEL, startOidcStack, type OidcStack } from './testing/oidcStack.js';

const ZOE: TestAccount = {
  sub: 'zoe-sub',
  password: 'zoe-provider-password',
  email: 'zoe@example.org',
  emailVerified: true,
  name: 'Zoe Example',
};

const built = existsSync(join(WEB_ROOT, 'signin.html')) && existsSync(join(WEB_ROOT, 'index.html'));

describe.skipIf(!built)('OpenID Connect sign-in in Chromium (needs `npm run build`)', () => {
  let stack: OidcStack;
  let browser: Browser;
  const pages: Page[] = [];

  beforeAll(async () => {
    stack = await startOidcStack({
      accounts: [ZOE],
      webRoot: WEB_ROOT,
      bridgeHost: 'localhost',
      providerHost: '127.0.0.1',
    });
    await stack.fixture.store.people.add({
      username: 'zoe@example.org',
      displayName: 'Zoe',
      passwordHash: null,
      role: 'member',
    });
    browser = await chromium.launch({
      executablePath: chromiumPath(),
      headless: true,
      args: [...CHROMIUM_FLAGS],
    });
  });

  afterEach(async () => {
    for (const page of pages.splice(0)) await page.context().close();
  });

  afterAll(async () => {
    await browser?.close();
    await stack?.close();
  });

  async function freshPage(): Promise<Page> {
    const context = await browser.newContext();
    const page = await context.newPage();
    pages.push(page);
    return page;
  }

  it('signs in from the sign-in page and lands on the viewer', async () => {
    const page = await freshPage();
    const navigations: Request[] = [];
    page.on('request', (request) => {
      if (request.isNavigationRequest() && request.frame() === page.mainFrame()) {
        navigations.push(request);
      }
    });
    const signInPage = new URL(PAGES.signIn, stack.bridgeUrl).href;
    await page.goto(signInPage);
    await page.getByRole('link', { name: `Sign in with ${LABEL}` }).click();

    await page.waitForURL((url) => url.origin === stack.idp.issuer);
    await page.getByLabel('Login').fill(ZOE.sub);
    await page.getByLabel('Password').fill(ZOE.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('button', { name: 'Allow' }).click();

    const viewer = new URL(PAGES.viewer, stack.bridgeUrl).href;
    await page.waitForURL(viewer);
    // The viewer reads /api/me and sends signed-out people to /signin: give it the time to.
    await page.waitForLoadState('networkidle');
    expect(page.url()).toBe(viewer);
    // Straight from the callback to the viewer, with the session cookie on that navigation: a
    // redirect inside the provider's cross-site chain would have reached / without the Strict
    // cookie, bounced to /signin, and come back only because the sign-in page sees the session.
    const callbackAt = navigations.findIndex((r) => new URL(r.url()).pathname === API.oidcCallback);
    expect(callbackAt).toBeGreaterThan(0);
    const after = navigations.slice(callbackAt + 1);
    expect(after.map((r) => r.url())).toEqual([viewer]);
    expect(await after[0]?.headerValue('cookie')).toMatch(
      new RegExp(`(^|; )${stack.fixture.access.cookie.name}=`),
    );
    // The flow cookie (SameSite=Lax) came along on the provider's cross-site redirect.
    expect(await navigations[callbackAt]?.headerValue('cookie')).toMatch(/(^|; )oc_oidc_flow=/);
    const me = await page.evaluate(async (path) => {
      const answer = await fetch(path);
      return { status: answer.status, body: await answer.json() };
    }, API.me);
    expect(me.status).toBe(200);
    expect(me.body).toMatchObject({
      person: { username: 'zoe@example.org', oidc_linked: true },
      session: { method: 'oidc' },
    });

    await stack.fixture.access.audit.flush();
    const signIns = await stack.fixture.store.audit.query({ kind: 'sign_in', limit: 10 });
    expect(signIns).toHaveLength(1);
    expect(signIns[0]?.detail).toMatch(/^oidc from /);
  });
});
