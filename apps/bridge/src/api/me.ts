// The signed-in person's own account (/api/me*): who they are with their permissions and CSRF
// token, changing their password (which signs out their other sessions), and their permission
// toggles — applied at once to their open windows and to calls still waiting.
import {
  API,
  ChangePasswordRequest,
  PERMISSION_LABELS,
  PermissionsPatch,
  type PersonSettingName,
} from '@overlay-companion/protocol';
import type { Hono } from 'hono';
import { hashPassword, verifyPassword } from '../auth/passwords.js';
import { apiError, parseJsonBody } from '../http/apiError.js';
import type { BridgeEnv } from '../http/env.js';
import { meOf } from './auth.js';
import type { ApiDeps } from './deps.js';

export function mountMeRoutes(app: Hono<BridgeEnv>, deps: ApiDeps): void {
  const { access } = deps;

  app.get(API.me, async (c) => {
    const signedIn = c.get('signedIn');
    if (signedIn === undefined) return apiError(c, 401, 'Sign in first.');
    c.header('Cache-Control', 'no-store');
    return c.json(await meOf(deps, signedIn));
  });

  app.put(API.myPassword, async (c) => {
    const signedIn = c.get('signedIn');
    if (signedIn === undefined) return apiError(c, 401, 'Sign in first.');
    const body = await parseJsonBody(c, ChangePasswordRequest);
    if (!body.ok) return body.response;
    const person = signedIn.person;
    if (person.passwordHash === null) {
      return apiError(
        c,
        409,
        'You sign in with OpenID Connect and have no password here to change.',
      );
    }
    if (!(await verifyPassword(person.passwordHash, body.value.current_password))) {
      return apiError(c, 403, 'The current password is wrong.', { field: 'current_password' });
    }
    await access.store.people.update(person.id, {
      passwordHash: await hashPassword(body.value.new_password),
    });
    await access.sessions.endForPerson(person.id, 'the password changed', signedIn.session.idHash);
    access.audit.record({
      kind: 'password_changed',
      actor: 'person',
      personId: person.id,
      personName: person.displayName,
      outcome: 'ok',
      detail: 'other sessions signed out',
    });
    return c.json({ ok: true });
  });

  app.put(API.myPermissions, async (c) => {
    const signedIn = c.get('signedIn');
    if (signedIn === undefined) return apiError(c, 401, 'Sign in first.');
    const body = await parseJsonBody(c, PermissionsPatch);
    if (!body.ok) return body.response;
    const person = signedIn.person;
    const next = await deps.planes.updatePermissions(person.id, body.value);
    const changes = (Object.entries(body.value) as [PersonSettingName, boolean][])
      .map(([name, on]) => `${PERMISSION_LABELS[name]}: ${on ? 'on' : 'off'}`)
      .join('; ');
    access.audit.record({
      kind: 'permissions_changed',
      actor: 'person',
      personId: person.id,
      personName: person.displayName,
      outcome: 'ok',
      detail: changes === '' ? 'no change' : changes,
    });
    return c.json(next);
  });
}
