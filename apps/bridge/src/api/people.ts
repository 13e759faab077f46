// People, for admins (/api/people): list, add, change (name, role, disabled, password) and remove.
// Disabling or removing someone ends everything they had open at once — sign-in sessions and
// their sockets, MCP sessions, pending calls — and their tokens stop working. The last active
// admin can be neither demoted, disabled nor removed.
import {
  API,
  AddPersonRequest,
  UpdatePersonRequest,
  type PersonView,
} from '@overlay-companion/protocol';
import type { Hono } from 'hono';
import { hashPassword } from '../auth/passwords.js';
import { apiError, parseJsonBody } from '../http/apiError.js';
import type { BridgeEnv } from '../http/env.js';
import { requireAdmin } from '../perimeter/signedIn.js';
import type { PersonPatch, PersonRecord } from '../store/types.js';
import { addPerson } from './addPerson.js';
import type { ApiDeps } from './deps.js';
import { personView } from './views.js';

export function mountPeopleRoutes(app: Hono<BridgeEnv>, deps: ApiDeps): void {
  const { access } = deps;
  const store = access.store;
  app.use(API.people, requireAdmin());
  app.use(`${API.people}/*`, requireAdmin());

  /** Ends everything a person has open (disabled or removed). */
  const cutOff = async (person: PersonRecord, reason: string): Promise<void> => {
    await access.sessions.endForPerson(person.id, reason);
    access.sockets.closePerson(person.id, reason);
    await access.tokens.invalidate({ personId: person.id });
    await deps.endMcpSessions({ personId: person.id }, reason);
    await deps.planes.drop(person.id, reason);
  };

  /** True when `person` is the only active admin left. */
  const lastAdmin = async (person: PersonRecord): Promise<boolean> =>
    person.role === 'admin' && !person.disabled && (await store.people.countActiveAdmins()) <= 1;

  app.get(API.people, async (c) => {
    const people: PersonView[] = (await store.people.list()).map(personView);
    c.header('Cache-Control', 'no-store');
    return c.json({ people });
  });

  app.post(API.people, async (c) => {
    const admin = c.get('signedIn');
    const body = await parseJsonBody(c, AddPersonRequest);
    if (!body.ok || admin === undefined)
      return body.ok ? apiError(c, 401, 'Sign in first.') : body.response;
    // Without a password, OpenID Connect is their only way in: refuse an account nobody could
    // ever sign in to, rather than add it and leave the admin to find out.
    if (body.value.password === undefined && deps.oidc === undefined)
      return apiError(
        c,
        400,
        'This person could never sign in: give them a password (OpenID Connect is not configured on this bridge).',
        { field: 'password' },
      );
    const added = await addPerson(c, store, {
      username: body.value.username,
      displayName: body.value.display_name,
      password: body.value.password,
      role: body.value.role,
    });
    if (!added.ok) return added.response;
    const person = added.person;
    access.audit.record({
      kind: 'person_added',
      actor: 'person',
      personId: admin.person.id,
      personName: admin.person.displayName,
      outcome: 'ok',
      detail: `added ${person.username} (${person.role})`,
    });
    return c.json(personView(person), 201);
  });

  app.patch(`${API.people}/:id`, async (c) => {
    const admin = c.get('signedIn');
    if (admin === undefined) return apiError(c, 401, 'Sign in first.');
    const body = await parseJsonBody(c, UpdatePersonRequest);
    if (!body.ok) return body.response;
    const person = await store.people.byId(c.req.param('id'));
    if (person === undefined) return apiError(c, 404, 'No such person; reload the list.');
    const change = body.value;
    const losesAdmin = change.role === 'member' || change.disabled === true;
    if (losesAdmin && (await lastAdmin(person))) {
      return apiError(
        c,
        409,
        `${person.username} is the last active admin; make someone else an admin first.`,
      );
    }
    const patch: PersonPatch = {};
    if (change.display_name !== undefined) patch.displayName = change.display_name;
    if (change.role !== undefined) patch.role = change.role;
    if (change.disabled !== undefined) patch.disabled = change.disabled;
    if (change.password !== undefined) patch.passwordHash = await hashPassword(change.password);
    const updated = await store.people.update(person.id, patch);
    if (updated === undefined) return apiError(c, 404, 'No such person; reload the list.');
    // Who OC_MCP_TOKEN acts for, and what a token's person may do, may have changed.
    await access.tokens.invalidate({ personId: person.id });
    if (change.disabled === true) await cutOff(updated, 'an admin disabled the account');
    else if (change.password !== undefined && person.id !== admin.person.id) {
      await access.sessions.endForPerson(person.id, 'an admin reset the password');
    }
    access.audit.record({
      kind: 'person_changed',
      actor: 'person',
      personId: admin.person.id,
      personName: admin.person.displayName,
      outcome: 'ok',
      detail: `${person.username}: ${Object.keys(change).join(', ')}`,
    });
    return c.json(personView(updated));
  });

  app.delete(`${API.people}/:id`, async (c) => {
    const admin = c.get('signedIn');
    if (admin === undefined) return apiError(c, 401, 'Sign in first.');
    const person = await store.people.byId(c.req.param('id'));
    if (person === undefined) return apiError(c, 404, 'No such person; reload the list.');
    if (await lastAdmin(person)) {
      return apiError(
        c,
        409,
        `${person.username} is the last active admin; make someone else an admin first.`,
      );
    }
    await cutOff(person, 'an admin removed the account');
    await store.people.remove(person.id);
    access.audit.record({
      kind: 'person_removed',
      actor: 'person',
      personId: admin.person.id,
      personName: admin.person.displayName,
      outcome: 'ok',
      detail: `removed ${person.username}`,
    });
    return c.json({ ok: true });
  });
}
