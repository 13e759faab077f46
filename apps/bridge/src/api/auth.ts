// Sign-in routes (/api/auth/*): whether setup is needed, first-run setup with the one-time code,
// sign-in with a password (through the brute-force throttle) and sign-out (which ends the
// session's sockets). OpenID Connect's two routes live in oidcRoutes.ts.
import {
  API,
  SetupRequest,
  SignInRequest,
  type AuthState,
  type Me,
} from '@overlay-companion/protocol';
import type { Context, Hono } from 'hono';
import { clientAddress } from '../auth/clientAddress.js';
import { clearSessionCookie, writeSessionCookie } from '../auth/cookies.js';
import { verifyPassword } from '../auth/passwords.js';
import { readDeviceCookie, writeDeviceCookie } from '../auth/signInDevice.js';
import { banMessage } from '../auth/signInThrottle.js';
import type { SignedIn } from '../auth/webSessions.js';
import type { PersonRecord } from '../store/types.js';
import { apiError, parseJsonBody } from '../http/apiError.js';
import type { BridgeEnv } from '../http/env.js';
import { addPerson } from './addPerson.js';
import type { ApiDeps } from './deps.js';
import { personView } from './views.js';

export async function meOf(deps: ApiDeps, signedIn: SignedIn): Promise<Me> {
  return {
    person: personView(signedIn.person),
    permissions: await deps.access.store.permissions.get(signedIn.person.id),
    csrf_token: signedIn.session.csrfToken,
    session: {
      expires_at: signedIn.session.expiresAt,
      idle_timeout_ms: deps.access.sessions.limits.idleMs,
      method: signedIn.session.method,
    },
  };
}

/** Signs `person` in on this response (cookie) and answers with Me. */
export async function startSession(
  deps: ApiDeps,
  c: Context<BridgeEnv>,
  person: PersonRecord,
  method: 'password' | 'oidc',
): Promise<Me> {
  const source = clientAddress(c, deps.access.trustedProxies);
  const { cookieValue, session } = await deps.access.sessions.create(person, method, source);
  writeSessionCookie(c, deps.access.cookie, cookieValue);
  deps.access.audit.record({
    kind: 'sign_in',
    actor: 'person',
    personId: person.id,
    personName: person.displayName,
    outcome: 'ok',
    detail: `${method} from ${source}`,
  });
  return meOf(deps, { person, session });
}

export function mountAuthRoutes(app: Hono<BridgeEnv>, deps: ApiDeps): void {
  const { access } = deps;
  const store = access.store;

  app.get(API.authState, async (c) => {
    c.header('Cache-Control', 'no-store');
    const state: AuthState = {
      setup_needed: (await store.people.countActiveAdmins()) === 0,
      signed_in: c.get('signedIn') !== undefined,
      oidc: deps.oidc === undefined ? null : { label: deps.oidc.label },
    };
    return c.json(state);
  });

  app.post(API.setup, async (c) => {
    const body = await parseJsonBody(c, SetupRequest);
    if (!body.ok) return body.response;
    if ((await store.people.countActiveAdmins()) > 0) {
      return apiError(c, 409, 'Setup is already done: sign in at /signin.');
    }
    // The code is checked (and used up) only once the rest of the request is valid.
    if (!access.setup.consume(body.value.code)) {
      return apiError(
        c,
        403,
        'This setup link is wrong or was already used. Restart overlay-companion serve for a new link, or set OC_ADMIN_USER and OC_ADMIN_PASSWORD.',
        { field: 'code' },
      );
    }
    const added = await addPerson(c, store, {
      username: body.value.username,
      displayName: body.value.display_name,
      password: body.value.password,
      role: 'admin',
    });
    if (!added.ok) return added.response;
    const person = added.person;
    access.audit.record({
      kind: 'person_added',
      actor: 'person',
      personId: person.id,
      personName: person.displayName,
      outcome: 'ok',
      detail: 'first admin, created with the setup link',
    });
    return c.json(await startSession(deps, c, person, 'password'));
  });

  app.post(API.signIn, async (c) => {
    const source = clientAddress(c, access.trustedProxies);
    const body = await parseJsonBody(c, SignInRequest);
    if (!body.ok) return body.response;
    const username = body.value.username.trim();
    // Booked before the password is checked, with no await in between, so a burst of parallel
    // guesses cannot all be checked before the limit lands (signInThrottle.ts).
    const decision = access.throttle.reserve({
      account: username,
      address: source,
      deviceCookie: readDeviceCookie(c, access.cookie),
    });
    if (!decision.allowed) {
      const now = decision.until - decision.retryAfterMs;
      return apiError(c, 429, banMessage(decision.until, now, decision.limit), {
        retryAfterMs: decision.retryAfterMs,
      });
    }
    let person: Awaited<ReturnType<typeof store.people.byUsername>>;
    let matches: boolean;
    try {
      person = await store.people.byUsername(username);
      matches = await verifyPassword(person?.passwordHash, body.value.password);
    } catch (err) {
      // Not judged (a store outage answers 503 from here): the attempt counts for nothing, and
      // above all leaves no limit held "in flight".
      decision.attempt.abandoned();
      throw err;
    }
    if (person === undefined || !matches || person.disabled) {
      access.audit.record({
        kind: 'sign_in_failed',
        actor: 'person',
        personId: person?.id ?? null,
        personName: person?.displayName ?? null,
        outcome: 'denied',
        detail: `from ${source}`,
      });
      const now = decision.attempt.failed();
      if (now.banned)
        return apiError(c, 429, banMessage(now.until, now.until - now.retryAfterMs), {
          retryAfterMs: now.retryAfterMs,
        });
      return apiError(c, 401, 'Wrong username or password.');
    }
    const device = decision.attempt.succeeded();
    const me = await startSession(deps, c, person, 'password');
    // After the session cookie: scripts that keep "the" cookie of a sign-in take the first.
    writeDeviceCookie(c, access.cookie, device);
    return c.json(me);
  });

  app.post(API.signOut, async (c) => {
    const signedIn = c.get('signedIn');
    if (signedIn !== undefined) {
      await access.sessions.end(signedIn.session.idHash, 'the person signed out');
      access.audit.record({
        kind: 'sign_out',
        actor: 'person',
        personId: signedIn.person.id,
        personName: signedIn.person.displayName,
        outcome: 'ok',
      });
    }
    clearSessionCookie(c, access.cookie);
    return c.json({ ok: true });
  });
}
