// The two OpenID Connect routes. /api/auth/oidc/start sends the browser to the provider, with a
// short-lived SameSite=Lax cookie binding the flow to this browser (Lax, because the provider's
// redirect back is a cross-site navigation, on which a Strict cookie would not be sent). The
// callback signs the person in and answers with a small page that moves on to `next` by itself:
// the session cookie is SameSite=Strict, and a redirect inside the provider's cross-site chain
// would arrive without it.
import { API, PAGES } from '@overlay-companion/protocol';
import type { Hono } from 'hono';
import { deleteCookie, getCookie, setCookie } from 'hono/cookie';
import type { BridgeEnv } from '../http/env.js';
import { safeNext } from '../http/safeNext.js';
import { startSession } from './auth.js';
import type { ApiDeps } from './deps.js';

const FLOW_COOKIE = 'oc_oidc_flow';

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (ch) => `&#${ch.charCodeAt(0)};`);
}

function page(title: string, body: string, refreshTo?: string): string {
  const refresh =
    refreshTo === undefined
      ? ''
      : `<meta http-equiv="refresh" content="0;url=${escapeHtml(refreshTo)}">`;
  return `<!doctype html><html lang="en"><head><meta charset="utf-8">${refresh}<title>${escapeHtml(title)}</title></head><body><h1>${escapeHtml(title)}</h1>${body}</body></html>`;
}

export function mountOidcRoutes(app: Hono<BridgeEnv>, deps: ApiDeps): void {
  const oidc = deps.oidc;
  app.get(API.oidcStart, async (c) => {
    if (oidc === undefined)
      return c.json({ error: 'OpenID Connect sign-in is not configured on this bridge.' }, 404);
    let started: { url: string; browserKey: string };
    try {
      started = await oidc.start(safeNext(c.req.query('next')));
    } catch (err) {
      deps.logger.warn({ err }, 'OpenID Connect discovery failed');
      return c.html(
        page(
          'Sign-in is unavailable',
          `<p>The identity provider cannot be reached right now. <a href="${PAGES.signIn}">Back to sign-in</a>.</p>`,
        ),
        503,
      );
    }
    setCookie(c, FLOW_COOKIE, started.browserKey, {
      httpOnly: true,
      sameSite: 'Lax',
      secure: deps.access.cookie.secure,
      path: API.oidcCallback,
      maxAge: 600,
    });
    return c.redirect(started.url, 302);
  });

  app.get(API.oidcCallback, async (c) => {
    if (oidc === undefined)
      return c.json({ error: 'OpenID Connect sign-in is not configured on this bridge.' }, 404);
    const browserKey = getCookie(c, FLOW_COOKIE);
    deleteCookie(c, FLOW_COOKIE, { path: API.oidcCallback, secure: deps.access.cookie.secure });
    const outcome = await oidc.finish(new URL(c.req.url), browserKey);
    if (!outcome.ok) {
      deps.access.audit.record({
        kind: 'sign_in_failed',
        actor: 'person',
        personId: null,
        personName: null,
        outcome: 'denied',
        detail: `oidc: ${outcome.message}`,
      });
      return c.html(
        page(
          'Sign-in failed',
          `<p>${escapeHtml(outcome.message)}</p><p><a href="${PAGES.signIn}">Back to sign-in</a></p>`,
        ),
        403,
      );
    }
    await startSession(deps, c, outcome.person, 'oidc');
    return c.html(
      page('Signed in', `<p><a href="${escapeHtml(outcome.next)}">Continue</a></p>`, outcome.next),
    );
  });
}
