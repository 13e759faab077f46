// The two OpenID Connect routes. /api/auth/oidc/start sends the browser to the provider, with a
// short-lived SameSite=Lax cookie binding the flow to this browser (Lax, because the provider's
// redirect back is a cross-site navigation, on which a Strict cookie would not be sent). The
// callback signs the person in and answers with a small page whose meta refresh moves on to
// `next`: the session cookie is SameSite=Strict, and Chromium leaves it off a redirect that is
// still part of the provider's cross-site chain (a 302 from here reached / without it and
// bounced to /signin), while the refresh is a navigation started by our own page, so same-site.
// oidc.browser.test.ts checks exactly that. The page has no script, so the CSP stays as it is.
import { API, PAGES } from '@overlay-companion/protocol';
import type { Hono } from 'hono';
import { getCookie, setCookie } from 'hono/cookie';
import { clientAddress } from '../auth/clientAddress.js';
import { OIDC_START_LIMIT } from '../auth/oidc.js';
import { KeyedBuckets } from '../limits/rateLimit.js';
import type { BridgeEnv } from '../http/env.js';
import { escapeHtml, htmlPage } from '../http/html.js';
import { safeNext } from '../perimeter/safeNext.js';
import { startSession } from './auth.js';
import type { ApiDeps } from './deps.js';

const FLOW_COOKIE = 'oc_oidc_flow';
/** Sent to start (a second tab keeps the key) and to the callback; nowhere else. */
const FLOW_COOKIE_PATH = API.oidcStart.slice(0, API.oidcStart.lastIndexOf('/'));
const NOT_CONFIGURED =
  'OpenID Connect sign-in is not configured on this bridge: sign in with your username and password.';

const BACK = `<p><a href="${PAGES.signIn}">Back to sign-in</a></p>`;

export function mountOidcRoutes(app: Hono<BridgeEnv>, deps: ApiDeps): void {
  const oidc = deps.oidc;
  const { access } = deps;
  const starts = new KeyedBuckets(oidc?.startLimit ?? OIDC_START_LIMIT);

  app.get(API.oidcStart, async (c) => {
    c.header('Cache-Control', 'no-store');
    if (oidc === undefined) return c.json({ error: NOT_CONFIGURED }, 404);
    const wait = starts.take(clientAddress(c, access.trustedProxies));
    if (wait > 0) {
      c.header('Retry-After', String(Math.ceil(wait / 1000)));
      return c.html(
        htmlPage(
          'Too many sign-in attempts',
          `<p>Too many sign-ins were started from your address. Try again in ${Math.ceil(wait / 1000)} s.</p>${BACK}`,
        ),
        429,
      );
    }
    let started: { url: string; browserKey: string };
    try {
      started = await oidc.start(safeNext(c.req.query('next')), getCookie(c, FLOW_COOKIE));
    } catch (err) {
      // The issuer and the reason only: discovery errors carry no secrets.
      deps.logger.warn(
        { issuer: oidc.config.issuer.href, err: err instanceof Error ? err.message : String(err) },
        'OpenID Connect discovery failed',
      );
      return c.html(
        htmlPage(
          'Sign-in is unavailable',
          `<p>The identity provider (${escapeHtml(oidc.label)}) cannot be reached right now. Try again in a moment, or sign in with your username and password.</p>${BACK}`,
        ),
        503,
      );
    }
    setCookie(c, FLOW_COOKIE, started.browserKey, {
      httpOnly: true,
      sameSite: 'Lax',
      secure: access.cookie.secure,
      path: FLOW_COOKIE_PATH,
      maxAge: 600,
    });
    return c.redirect(started.url, 302);
  });

  app.get(API.oidcCallback, async (c) => {
    c.header('Cache-Control', 'no-store');
    if (oidc === undefined) return c.json({ error: NOT_CONFIGURED }, 404);
    // The flow cookie stays until it expires: another tab of this browser may still be on its
    // way back with the same key, and without an open flow the key opens nothing.
    const outcome = await oidc.finish(new URL(c.req.url).searchParams, getCookie(c, FLOW_COOKIE));
    if (!outcome.ok) {
      access.audit.record({
        kind: 'sign_in_failed',
        actor: 'person',
        personId: null,
        personName: null,
        outcome: 'denied',
        detail: `oidc: ${outcome.message}`,
      });
      return c.html(
        htmlPage('Sign-in failed', `<p>${escapeHtml(outcome.message)}</p>${BACK}`),
        403,
      );
    }
    const { person } = outcome;
    if (outcome.how !== 'linked') {
      access.audit.record({
        kind: outcome.how === 'created' ? 'person_added' : 'person_changed',
        actor: 'system',
        personId: person.id,
        personName: person.displayName,
        outcome: 'ok',
        detail:
          outcome.how === 'created'
            ? 'member created at their first OpenID Connect sign-in (OC_OIDC_AUTO_CREATE=1)'
            : 'linked to their OpenID Connect identity by verified email',
      });
    }
    await startSession(deps, c, person, 'oidc');
    return c.html(
      htmlPage(
        'Signed in',
        `<p><a href="${escapeHtml(outcome.next)}">Continue</a></p>`,
        outcome.next,
      ),
    );
  });
}
