// Who is behind a browser request: resolves the sign-in cookie once per request (never for /mcp,
// which takes only bearer tokens), requires sign-in where it is needed, and checks the CSRF token
// on every state-changing /api request of a signed-in browser. A cookie alone never changes
// anything: a request must also carry X-CSRF-Token, which only our own pages can read.
import { API, CSRF_HEADER } from '@overlay-companion/protocol';
import type { Hono, MiddlewareHandler } from 'hono';
import type { Access } from '../auth/access.js';
import { readSessionCookie } from '../auth/cookies.js';
import { secretsEqual } from '../auth/secrets.js';
import { apiError } from '../http/apiError.js';
import type { BridgeEnv } from '../http/env.js';
import { STATE_CHANGING } from './guards.js';

/** /api routes anyone may call (they sign people in). */
const PUBLIC_API: ReadonlySet<string> = new Set([
  API.authState,
  API.setup,
  API.signIn,
  API.oidcStart,
  API.oidcCallback,
]);

export function installSignIn(app: Hono<BridgeEnv>, access: Access): void {
  app.use('*', async function resolveSignIn(c, next) {
    if (c.req.path === '/mcp' || c.req.path === '/healthz') return next();
    c.set(
      'signedIn',
      await access.sessions.resolve(readSessionCookie(c.req.header('cookie'), access.cookie)),
    );
    return next();
  });
  app.use('/api/*', requireSignedInApi());
  app.use('/api/*', csrfGuard());
}

function requireSignedInApi(): MiddlewareHandler<BridgeEnv> {
  return async function requireSignIn(c, next) {
    if (PUBLIC_API.has(c.req.path) || c.get('signedIn') !== undefined) return next();
    return apiError(c, 401, 'Sign in first: open /signin in this browser.');
  };
}

function csrfGuard(): MiddlewareHandler<BridgeEnv> {
  return async function checkCsrf(c, next) {
    const signedIn = c.get('signedIn');
    // The public routes (sign-in, setup) are for people without a session; Host/Origin and
    // JSON-only already keep other sites' pages from posting to them.
    if (!STATE_CHANGING.has(c.req.method) || signedIn === undefined || PUBLIC_API.has(c.req.path)) {
      return next();
    }
    const presented = c.req.header(CSRF_HEADER);
    if (presented === undefined || !secretsEqual(presented, signedIn.session.csrfToken)) {
      return apiError(
        c,
        403,
        `Missing or wrong ${CSRF_HEADER} header: reload the page (it reads the token from GET /api/me).`,
        { field: CSRF_HEADER },
      );
    }
    return next();
  };
}

/** For routes only admins may use. */
export function requireAdmin(): MiddlewareHandler<BridgeEnv> {
  return async function adminOnly(c, next) {
    if (c.get('signedIn')?.person.role === 'admin') return next();
    return apiError(c, 403, 'Only an admin can do this.');
  };
}
