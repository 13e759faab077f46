// Desktops as records (/api/desktops), in a signed-in browser only (/api takes no API tokens, so
// the AI can neither read a desktop's parameters nor change who may use it): list and read the
// desktops one may see, add one (admins; members when people_may_add_desktops is on), change or
// remove one and its grants (its owner or an admin). Passwords are sealed (DesktopSecretBox)
// before they are stored and never leave the bridge again: every answer is a desktopView. Each
// change is audited and handed to desktopsChanged (the runtime), not awaited.
import {
  API,
  CreateDesktopRequest,
  GrantRequest,
  MAX_DESKTOPS_PER_MEMBER,
  UpdateDesktopRequest,
  desktopParamsIssues,
  type DesktopAccess,
  type DesktopParams,
  type DesktopView,
} from '@overlay-companion/protocol';
import type { Context, Hono } from 'hono';
import { auditDesktopChange, type DesktopChangeKind } from '../audit/desktopChange.js';
import { accessOf, mayManage } from '../desktops/desktopAccess.js';
import { apiError, parseJsonBody } from '../http/apiError.js';
import type { BridgeEnv } from '../http/env.js';
import { newId } from '../store/ids.js';
import {
  StoreConflictError,
  type DesktopGrant,
  type DesktopPatch,
  type DesktopRecord,
  type PersonRecord,
} from '../store/types.js';
import type { ApiDeps } from './deps.js';
import { peopleMayAddDesktops } from './settings.js';
import { desktopView } from './views.js';

type DesktopChange = 'created' | 'changed' | 'removed' | 'grants';

const NOT_YOURS = 'No such desktop of yours; reload the list.';
/** A local desktop given away: its files stay behind, deleted (said in the audit and answer). */
const LOCAL_FILES_NOT_TRANSFERRED =
  'the files in its home folder were not transferred: they are deleted and the new owner starts with an empty one';

/** "rdp.example:3389", or "this machine" for a local desktop: where it is, for the audit. */
function where(desktop: { kind: string; params: DesktopParams }): string {
  if (desktop.kind === 'local') return 'this machine';
  return `${desktop.params.host ?? '?'}:${desktop.params.port ?? '?'}`;
}

export function mountDesktopRoutes(
  app: Hono<BridgeEnv>,
  deps: Pick<ApiDeps, 'access' | 'logger' | 'secretBox' | 'desktopsChanged' | 'directory'>,
): void {
  const { access, logger, secretBox } = deps;
  const store = access.store;

  /** Tells the runtime, without holding up the answer; a failure is logged. */
  const changed = (desktopId: string, change: DesktopChange): void => {
    const hook = deps.desktopsChanged;
    if (hook === undefined) return;
    const failed = (err: unknown) =>
      logger.warn({ err, desktopId, change }, 'applying a desktop change failed');
    try {
      Promise.resolve(hook(desktopId, change)).catch(failed);
    } catch (err) {
      failed(err);
    }
  };

  const audit = (
    person: PersonRecord,
    kind: DesktopChangeKind,
    desktop: Pick<DesktopRecord, 'id' | 'name'>,
    detail: string,
  ): void => auditDesktopChange(access.audit, person, kind, desktop, detail);

  /** Display names by id, for the views (one query per answer). */
  const names = async (): Promise<(personId: string) => string> => {
    const byId = new Map((await store.people.list()).map((p) => [p.id, p.displayName]));
    return (personId) => byId.get(personId) ?? '(removed)';
  };

  /** The desktop with what `person` may do with it; undefined when they may not see it. */
  const load = async (
    person: PersonRecord,
    id: string,
  ): Promise<
    { desktop: DesktopRecord; grants: DesktopGrant[]; access: DesktopAccess } | undefined
  > => {
    const desktop = await store.desktops.byId(id);
    if (desktop === undefined) return undefined;
    const grants = await store.desktops.grants(id);
    const level = accessOf(person, desktop, grants);
    return level === null ? undefined : { desktop, grants, access: level };
  };

  const viewOf = async (person: PersonRecord, id: string): Promise<DesktopView | undefined> => {
    const loaded = await load(person, id);
    if (loaded === undefined) return undefined;
    return desktopView(loaded.desktop, loaded.grants, loaded.access, await names());
  };

  /** The signed-in person and the desktop they may manage, or the refusal to answer with. */
  const manageable = async (
    c: Context<BridgeEnv>,
  ): Promise<
    | { ok: true; person: PersonRecord; desktop: DesktopRecord; grants: DesktopGrant[] }
    | { ok: false; response: Response }
  > => {
    const person = c.get('signedIn')?.person;
    if (person === undefined) return { ok: false, response: apiError(c, 401, 'Sign in first.') };
    const loaded = await load(person, c.req.param('id') ?? '');
    if (loaded === undefined) return { ok: false, response: apiError(c, 404, NOT_YOURS) };
    if (!mayManage(loaded.access)) {
      return {
        ok: false,
        response: apiError(c, 403, 'Only the desktop’s owner or an admin can change it.'),
      };
    }
    return { ok: true, person, desktop: loaded.desktop, grants: loaded.grants };
  };

  /** Whoever can no longer control a desktop is no longer in charge of it: the owner is again. */
  const handBackCharge = async (desktop: DesktopRecord, personId: string): Promise<void> => {
    if (desktop.inChargeId === personId) {
      await store.desktops.update(desktop.id, { inChargeId: null });
    }
  };

  const conflict = (c: Context, err: unknown): Response => {
    if (err instanceof StoreConflictError) return apiError(c, 409, err.message, { field: 'name' });
    throw err;
  };

  app.get(API.desktops, async (c) => {
    const person = c.get('signedIn')?.person;
    if (person === undefined) return apiError(c, 401, 'Sign in first.');
    // The runtime makes the desktops a person has before they first look: the command line's
    // desktop once an admin exists, and their own local desktop with --local-desktops per-person.
    await deps.directory?.listFor(person);
    const mine = await store.desktops.grantsForPerson(person.id);
    const nameOf = await names();
    const desktops: DesktopView[] = [];
    for (const desktop of await store.desktops.list()) {
      const level = accessOf(person, desktop, mine);
      if (level === null) continue;
      const grants = mayManage(level) ? await store.desktops.grants(desktop.id) : [];
      desktops.push(desktopView(desktop, grants, level, nameOf));
    }
    const mayAdd = person.role === 'admin' || (await peopleMayAddDesktops(store));
    c.header('Cache-Control', 'no-store');
    return c.json({ desktops, may_add: mayAdd });
  });

  app.get(`${API.desktops}/:id`, async (c) => {
    const person = c.get('signedIn')?.person;
    if (person === undefined) return apiError(c, 401, 'Sign in first.');
    const view = await viewOf(person, c.req.param('id'));
    if (view === undefined) return apiError(c, 404, NOT_YOURS);
    c.header('Cache-Control', 'no-store');
    return c.json(view);
  });

  app.post(API.desktops, async (c) => {
    const person = c.get('signedIn')?.person;
    if (person === undefined) return apiError(c, 401, 'Sign in first.');
    const isAdmin = person.role === 'admin';
    if (!isAdmin && !(await peopleMayAddDesktops(store))) {
      return apiError(
        c,
        403,
        'Only an admin can add desktops here: ask one to add it for you, or to let everyone add their own (Settings).',
      );
    }
    const body = await parseJsonBody(c, CreateDesktopRequest);
    if (!body.ok) return body.response;
    const request = body.value;
    const ownerId = request.owner_id ?? person.id;
    if (ownerId !== person.id) {
      if (!isAdmin) {
        return apiError(c, 403, 'Only an admin can add a desktop for someone else.', {
          field: 'owner_id',
        });
      }
      if ((await store.people.byId(ownerId)) === undefined) {
        return apiError(c, 400, 'There is no such person to own it; reload the list of people.', {
          field: 'owner_id',
        });
      }
    }
    if (!isAdmin) {
      // Each desktop costs this machine (a local one is a whole X server): a member's are capped.
      const owned = (await store.desktops.list()).filter((d) => d.ownerId === person.id).length;
      if (owned >= MAX_DESKTOPS_PER_MEMBER) {
        return apiError(
          c,
          403,
          `You already own ${owned} desktops (at most ${MAX_DESKTOPS_PER_MEMBER} for people who are not admins): remove one you no longer use, or ask an admin to add it.`,
        );
      }
    }
    const id = newId('dsk');
    const password = request.secrets?.password;
    let desktop: DesktopRecord;
    try {
      desktop = await store.desktops.add({
        id,
        name: request.name,
        kind: request.kind,
        params: request.params,
        secret: password === undefined || password === '' ? null : secretBox.seal(id, { password }),
        ownerId,
        // Where a member points it is kept off this machine when it connects (memberHosts.ts).
        targetSetByMember: person.role !== 'admin',
      });
    } catch (err) {
      return conflict(c, err);
    }
    audit(
      person,
      'desktop_created',
      desktop,
      `added ${desktop.kind} desktop at ${where(desktop)}${desktop.secret === null ? '' : ' with a password'}${ownerId === person.id ? '' : `, owned by ${ownerId}`}`,
    );
    changed(desktop.id, 'created');
    return c.json(await viewOf(person, desktop.id), 201);
  });

  app.patch(`${API.desktops}/:id`, async (c) => {
    const target = await manageable(c);
    if (!target.ok) return target.response;
    const { person, desktop } = target;
    const body = await parseJsonBody(c, UpdateDesktopRequest);
    if (!body.ok) return body.response;
    const change = body.value;
    const params = change.params ?? desktop.params;
    const issues = desktopParamsIssues(desktop.kind, params, change.secrets);
    const issue = issues[0];
    if (issue !== undefined) {
      return apiError(c, 400, `Invalid request: ${issue.path.join('.')} ${issue.message}.`, {
        field: issue.path.join('.'),
      });
    }
    const patch: DesktopPatch = {};
    const what: string[] = [];
    if (change.name !== undefined && change.name !== desktop.name) {
      patch.name = change.name;
      what.push(`renamed from "${desktop.name}"`);
    }
    if (change.params !== undefined) {
      patch.params = change.params;
      what.push(`parameters (${desktop.kind} at ${where({ kind: desktop.kind, params })})`);
      // Whoever chose the host last decides how far it is trusted (memberHosts.ts).
      if (params.host !== desktop.params.host || params.port !== desktop.params.port)
        patch.targetSetByMember = person.role !== 'admin';
    }
    const password = change.secrets?.password;
    if (password !== undefined) {
      patch.secret = password === '' ? null : secretBox.seal(desktop.id, { password });
      what.push(password === '' ? 'password cleared' : 'password set');
    } else if (
      desktop.secret !== null &&
      (params.host !== desktop.params.host || params.port !== desktop.params.port)
    ) {
      // The stored password never follows the desktop to another server: whoever may edit the
      // record (an owner who never saw the password) could otherwise point it at a server of
      // theirs and have the bridge hand the password over there.
      patch.secret = null;
      what.push('password cleared (another server)');
    }
    if (change.owner_id !== undefined && change.owner_id !== desktop.ownerId) {
      if (person.role !== 'admin') {
        return apiError(c, 403, 'Only an admin can give a desktop to someone else.', {
          field: 'owner_id',
        });
      }
      const owner = await store.people.byId(change.owner_id);
      if (owner === undefined) {
        return apiError(c, 400, 'There is no such person to own it; reload the list of people.', {
          field: 'owner_id',
        });
      }
      patch.ownerId = owner.id;
      what.push(`owner now ${owner.username}`);
      // The runtime gives it a fresh uid and HOME (desktops/localDesktopPool.ts reconcile).
      if (desktop.kind === 'local') what.push(LOCAL_FILES_NOT_TRANSFERRED);
    }
    let updated: DesktopRecord | undefined;
    try {
      updated = await store.desktops.update(desktop.id, patch);
    } catch (err) {
      return conflict(c, err);
    }
    if (updated === undefined) return apiError(c, 404, NOT_YOURS);
    // An owner needs no grant (and must not keep one that outlives a later change of owner).
    if (patch.ownerId !== undefined) await store.desktops.removeGrant(desktop.id, patch.ownerId);
    audit(
      person,
      'desktop_changed',
      updated,
      what.length === 0 ? 'nothing changed' : what.join('; '),
    );
    changed(desktop.id, 'changed');
    const view = await viewOf(person, desktop.id);
    // Giving one's own desktop away can leave nothing to see (a member admin-less owner).
    const notice =
      patch.ownerId !== undefined && desktop.kind === 'local'
        ? { notice: `Owner changed; ${LOCAL_FILES_NOT_TRANSFERRED}.` }
        : {};
    return view === undefined ? c.json({ ok: true, ...notice }) : c.json({ ...view, ...notice });
  });

  app.delete(`${API.desktops}/:id`, async (c) => {
    const target = await manageable(c);
    if (!target.ok) return target.response;
    const { person, desktop } = target;
    await store.desktops.remove(desktop.id);
    // A local desktop's HOME goes with it (the runtime deletes it: desktops/desktopHomes.ts).
    const home = desktop.kind === 'local' ? ' and the files in its home folder' : '';
    audit(
      person,
      'desktop_removed',
      desktop,
      `removed ${desktop.kind} desktop at ${where(desktop)}${home}`,
    );
    changed(desktop.id, 'removed');
    return c.json({ ok: true });
  });

  app.put(`${API.desktops}/:id/grants/:personId`, async (c) => {
    const target = await manageable(c);
    if (!target.ok) return target.response;
    const { person, desktop } = target;
    const body = await parseJsonBody(c, GrantRequest);
    if (!body.ok) return body.response;
    const grantee = await store.people.byId(c.req.param('personId'));
    if (grantee === undefined)
      return apiError(c, 404, 'No such person; reload the list of people.');
    if (grantee.id === desktop.ownerId) {
      return apiError(c, 400, `${grantee.username} owns this desktop and needs no grant.`);
    }
    try {
      await store.desktops.setGrant(desktop.id, grantee.id, body.value.level);
    } catch (err) {
      if (err instanceof StoreConflictError) return apiError(c, 409, err.message);
      throw err;
    }
    if (body.value.level === 'view') await handBackCharge(desktop, grantee.id);
    audit(
      person,
      'desktop_grant_changed',
      desktop,
      `granted ${grantee.username} (${grantee.id}) ${body.value.level}`,
    );
    changed(desktop.id, 'grants');
    return c.json(await viewOf(person, desktop.id));
  });

  app.delete(`${API.desktops}/:id/grants/:personId`, async (c) => {
    const target = await manageable(c);
    if (!target.ok) return target.response;
    const { person, desktop } = target;
    const personId = c.req.param('personId');
    if (!(await store.desktops.removeGrant(desktop.id, personId))) {
      return apiError(c, 404, 'That person has no grant on this desktop; reload the list.');
    }
    await handBackCharge(desktop, personId);
    const grantee = await store.people.byId(personId);
    audit(
      person,
      'desktop_grant_changed',
      desktop,
      `took ${grantee?.username ?? 'a removed person'}'s (${personId}) access away`,
    );
    changed(desktop.id, 'grants');
    return c.json(await viewOf(person, desktop.id));
  });
}
