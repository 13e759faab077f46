// Desktops over the real HTTP API, as signed-in browsers: an admin adds, changes and removes
// them; a member adds only when the bridge-wide setting allows, sees only the desktops granted to
// them and changes none of them; grants are given, changed and taken away by the owner or an
// admin; tokens name only desktops their person may use. The password goes in and never comes
// out: not in any answer, not in the audit log, not in the bridge's log.
import {
  API,
  DesktopList,
  DesktopView,
  MAX_DESKTOPS_PER_MEMBER,
  type CreatedToken,
  type DesktopView as DesktopViewType,
} from '@overlay-companion/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TOKEN, startTestBridge, type TestBridge } from '../mcp/testing/fixtures.js';
import { memoryLogger, type MemoryLog } from '../perimeter/testing/logs.js';
import { addPerson, type OtherPerson } from '../perimeter/testing/people.js';
import type { BrowserSession } from '../testing/browserSession.js';
import { registerSecret } from '../testing/testLogs.js';

const PASSWORD = 'rdp-Passw0rd-never-to-be-shown';
const NEW_PASSWORD = 'another-rdp-Passw0rd-kept-sealed';
registerSecret(PASSWORD, NEW_PASSWORD);

let bridge: TestBridge;
let log: MemoryLog;
let member: OtherPerson;
let other: OtherPerson;
/** Every answer body any test read, for the final "no password anywhere" check. */
const bodies: string[] = [];

beforeAll(async () => {
  log = memoryLogger();
  bridge = await startTestBridge({ logger: log.logger });
  member = await addPerson(bridge.session, 'mira', { displayName: 'Mira Member' });
  other = await addPerson(bridge.session, 'otto', { displayName: 'Otto Other' });
});

afterAll(async () => {
  await bridge.close();
});

async function call(
  session: BrowserSession,
  path: string,
  init: { method?: string; body?: unknown } = {},
): Promise<{ status: number; json: unknown; text: string }> {
  const response = await session.request(path, init);
  const text = await response.text();
  bodies.push(text);
  return { status: response.status, json: text === '' ? undefined : JSON.parse(text), text };
}

const RDP = {
  kind: 'guacd-rdp',
  params: { host: 'rdp.example', port: 3389, username: 'ada', keyboard: 'de-de-qwertz' },
  secrets: { password: PASSWORD },
} as const;

async function create(
  session: BrowserSession,
  name: string,
  extra: Record<string, unknown> = {},
): Promise<DesktopViewType> {
  const made = await call(session, API.desktops, { body: { ...RDP, name, ...extra } });
  expect(made.status, made.text).toBe(201);
  return DesktopView.parse(made.json);
}

async function list(session: BrowserSession): Promise<DesktopViewType[]> {
  const answer = await call(session, API.desktops);
  expect(answer.status).toBe(200);
  return DesktopList.parse(answer.json).desktops;
}

describe('desktops', () => {
  it('an admin adds, reads, changes and removes a desktop; the password only as has_password', async () => {
    const made = await create(bridge.session, 'Office PC');
    expect(made).toMatchObject({
      name: 'Office PC',
      kind: 'guacd-rdp',
      params: RDP.params,
      has_password: true,
      owner: { id: bridge.admin.id, name: 'Ada Admin' },
      in_charge: { id: bridge.admin.id, name: 'Ada Admin' },
      grants: [],
      access: 'owner',
    });
    expect(made.id).toMatch(/^dsk_/);
    expect((await list(bridge.session)).map((d) => d.name)).toContain('Office PC');
    expect((await call(bridge.session, `${API.desktops}/${made.id}`)).json).toEqual(made);

    const renamed = await call(bridge.session, `${API.desktops}/${made.id}`, {
      method: 'PATCH',
      body: { name: 'Office', params: { ...RDP.params, read_only: true } },
    });
    expect(renamed.status, renamed.text).toBe(200);
    expect(renamed.json).toMatchObject({
      name: 'Office',
      params: { read_only: true },
      has_password: true,
    });
    const newPassword = await call(bridge.session, `${API.desktops}/${made.id}`, {
      method: 'PATCH',
      body: { secrets: { password: NEW_PASSWORD } },
    });
    expect(newPassword.json).toMatchObject({ has_password: true });
    // Another server without the password typed again: the stored one is dropped, never sent there.
    const moved = await call(bridge.session, `${API.desktops}/${made.id}`, {
      method: 'PATCH',
      body: { params: { ...RDP.params, host: 'elsewhere.example' } },
    });
    expect(moved.json).toMatchObject({ has_password: false });
    await call(bridge.session, `${API.desktops}/${made.id}`, {
      method: 'PATCH',
      body: {
        params: { ...RDP.params, host: 'elsewhere.example' },
        secrets: { password: NEW_PASSWORD },
      },
    });
    const stored = await bridge.access.store.desktops.byId(made.id);
    expect(stored?.secret).toMatch(/^v1\./);
    const cleared = await call(bridge.session, `${API.desktops}/${made.id}`, {
      method: 'PATCH',
      body: { secrets: { password: '' } },
    });
    expect(cleared.json).toMatchObject({ has_password: false });
    expect((await bridge.access.store.desktops.byId(made.id))?.secret).toBeNull();

    const removed = await call(bridge.session, `${API.desktops}/${made.id}`, { method: 'DELETE' });
    expect(removed.status).toBe(200);
    expect((await call(bridge.session, `${API.desktops}/${made.id}`)).status).toBe(404);
  });

  it('refuses parameters that do not fit the kind, a kind change and a taken name', async () => {
    const noHost = await call(bridge.session, API.desktops, {
      body: { name: 'No host', kind: 'vnc', params: { port: 5900 } },
    });
    expect(noHost.status).toBe(400);
    expect(noHost.json).toMatchObject({ field: 'params.host' });
    const localWithPassword = await call(bridge.session, API.desktops, {
      body: { name: 'Local', kind: 'local', secrets: { password: 'x' } },
    });
    expect(localWithPassword.status).toBe(400);
    expect(localWithPassword.json).toMatchObject({ field: 'secrets.password' });
    const badKeyboard = await call(bridge.session, API.desktops, {
      body: { ...RDP, name: 'Bad keys', params: { ...RDP.params, keyboard: 'xx-yy' } },
    });
    expect(badKeyboard.status).toBe(400);

    const local = await create(bridge.session, 'Sandbox', {
      kind: 'local',
      params: { idle_stop_minutes: 30 },
      secrets: undefined,
    });
    expect(local).toMatchObject({ kind: 'local', has_password: false });
    const kindChange = await call(bridge.session, `${API.desktops}/${local.id}`, {
      method: 'PATCH',
      body: { kind: 'vnc' },
    });
    expect(kindChange.status).toBe(400);
    const hostOnLocal = await call(bridge.session, `${API.desktops}/${local.id}`, {
      method: 'PATCH',
      body: { params: { host: 'elsewhere', port: 5900 } },
    });
    expect(hostOnLocal.status).toBe(400);
    const taken = await call(bridge.session, API.desktops, { body: { ...RDP, name: 'SANDBOX' } });
    expect(taken.status).toBe(409);
  });

  it('a member adds desktops only when the setting allows, and then owns them', async () => {
    const extras: string[] = [];
    const refused = await call(member.session, API.desktops, { body: { ...RDP, name: 'Mine' } });
    expect(refused.status).toBe(403);
    expect((await call(member.session, API.desktops)).json).toMatchObject({ may_add: false });
    expect((await call(bridge.session, API.settings)).json).toMatchObject({
      people_may_add_desktops: false,
    });
    const on = await call(bridge.session, API.settings, {
      method: 'PUT',
      body: { people_may_add_desktops: true },
    });
    expect(on.json).toMatchObject({ people_may_add_desktops: true });
    try {
      expect((await call(member.session, API.desktops)).json).toMatchObject({ may_add: true });
      const mine = await create(member.session, 'Mira’s desk');
      expect(mine).toMatchObject({ owner: { id: member.person.id }, access: 'owner' });
      // Where a member points a desktop is marked, so the bridge keeps it off this machine; an
      // admin moving it takes that choice over.
      expect((await bridge.access.store.desktops.byId(mine.id))?.targetSetByMember).toBe(true);
      const moved = await call(bridge.session, `${API.desktops}/${mine.id}`, {
        method: 'PATCH',
        body: { params: { ...RDP.params, host: 'rdp2.internal' } },
      });
      expect(moved.status).toBe(200);
      expect((await bridge.access.store.desktops.byId(mine.id))?.targetSetByMember).toBe(false);
      const forOther = await call(member.session, API.desktops, {
        body: { ...RDP, name: 'For Otto', owner_id: other.person.id },
      });
      expect(forOther.status).toBe(403);
      // The admin sees it too, as an admin; Otto does not.
      expect((await list(bridge.session)).find((d) => d.id === mine.id)?.access).toBe('admin');
      expect((await list(other.session)).find((d) => d.id === mine.id)).toBeUndefined();
      // A member's desktops are capped (each costs the machine); an admin's are not.
      for (let i = 1; i < MAX_DESKTOPS_PER_MEMBER; i++) {
        extras.push((await create(member.session, `Extra ${i}`)).id);
      }
      const over = await call(member.session, API.desktops, {
        body: { ...RDP, name: 'One too many' },
      });
      expect(over.status).toBe(403);
      expect(JSON.stringify(over.json)).toMatch(/at most 20/);
      expect(await bridge.access.store.desktops.byName('One too many')).toBeUndefined();
    } finally {
      for (const id of extras) {
        await call(bridge.session, `${API.desktops}/${id}`, { method: 'DELETE' });
      }
      await call(bridge.session, API.settings, {
        method: 'PUT',
        body: { people_may_add_desktops: false },
      });
    }
  });

  it('a member sees only what is granted, changes nothing, and grants are managed by owner or admin', async () => {
    const granted = await create(bridge.session, 'Granted');
    const hidden = await create(bridge.session, 'Hidden');
    const toOwner = await call(
      bridge.session,
      `${API.desktops}/${granted.id}/grants/${bridge.admin.id}`,
      { method: 'PUT', body: { level: 'view' } },
    );
    expect(toOwner.status).toBe(400);
    const toNobody = await call(bridge.session, `${API.desktops}/${granted.id}/grants/p_nobody`, {
      method: 'PUT',
      body: { level: 'view' },
    });
    expect(toNobody.status).toBe(404);
    const grant = await call(
      bridge.session,
      `${API.desktops}/${granted.id}/grants/${member.person.id}`,
      { method: 'PUT', body: { level: 'view' } },
    );
    expect(grant.status, grant.text).toBe(200);
    expect((grant.json as DesktopViewType).grants).toEqual([
      { person_id: member.person.id, person_name: 'Mira Member', level: 'view' },
    ]);

    // (Mira may own one from the test before: only what others own counts here.)
    const notOwned = async (session: BrowserSession) =>
      (await list(session)).filter((d) => d.access !== 'owner');
    const seen = await notOwned(member.session);
    expect(seen.map((d) => d.name)).toEqual(['Granted']);
    expect(seen[0]).toMatchObject({ access: 'view', grants: [], has_password: true });
    expect((await call(member.session, `${API.desktops}/${hidden.id}`)).status).toBe(404);
    expect(
      (
        await call(member.session, `${API.desktops}/${granted.id}`, {
          method: 'PATCH',
          body: { name: 'Mine now' },
        })
      ).status,
    ).toBe(403);
    expect(
      (await call(member.session, `${API.desktops}/${granted.id}`, { method: 'DELETE' })).status,
    ).toBe(403);
    expect(
      (
        await call(member.session, `${API.desktops}/${granted.id}/grants/${other.person.id}`, {
          method: 'PUT',
          body: { level: 'control' },
        })
      ).status,
    ).toBe(403);
    // Another person's desktop they may not see answers like a missing one.
    expect(
      (await call(member.session, `${API.desktops}/${hidden.id}`, { method: 'DELETE' })).status,
    ).toBe(404);

    // Upgrade, then take away.
    await call(bridge.session, `${API.desktops}/${granted.id}/grants/${member.person.id}`, {
      method: 'PUT',
      body: { level: 'control' },
    });
    expect((await notOwned(member.session))[0]?.access).toBe('control');
    const gone = await call(
      bridge.session,
      `${API.desktops}/${granted.id}/grants/${member.person.id}`,
      { method: 'DELETE' },
    );
    expect((gone.json as DesktopViewType).grants).toEqual([]);
    expect(await notOwned(member.session)).toEqual([]);
    expect(
      (
        await call(bridge.session, `${API.desktops}/${granted.id}/grants/${member.person.id}`, {
          method: 'DELETE',
        })
      ).status,
    ).toBe(404);

    await bridge.access.audit.flush();
    const entries = await bridge.access.store.audit.query({
      kind: 'desktop_grant_changed',
      limit: 50,
    });
    expect(entries.map((e) => e.detail)).toEqual(
      expect.arrayContaining([
        expect.stringContaining('granted mira'),
        expect.stringContaining('granted mira') as unknown,
        expect.stringContaining('took mira'),
      ]),
    );
    expect(entries[0]?.summary).toContain('"Granted"');
  });

  it('tokens name only desktops their person may use', async () => {
    const usable = await create(bridge.session, 'Usable');
    const notHers = await create(bridge.session, 'Not hers');
    await call(bridge.session, `${API.desktops}/${usable.id}/grants/${member.person.id}`, {
      method: 'PUT',
      body: { level: 'control' },
    });
    const scoped = await call(member.session, API.tokens, {
      body: { name: 'scoped', desktops: [usable.id] },
    });
    expect(scoped.status, scoped.text).toBe(201);
    registerSecret((scoped.json as CreatedToken).secret);
    expect((scoped.json as CreatedToken).token.desktops).toEqual([usable.id]);
    const refused = await call(member.session, API.tokens, {
      body: { name: 'too much', desktops: [usable.id, notHers.id] },
    });
    expect(refused.status).toBe(400);
    expect(refused.json).toMatchObject({ field: 'desktops' });
    expect((refused.json as { error: string }).error).toContain(notHers.id);
    const all = await call(member.session, API.tokens, { body: { name: 'all' } });
    registerSecret((all.json as CreatedToken).secret);
    expect((all.json as CreatedToken).token.desktops).toBeNull();
    // An admin may name any desktop.
    const admins = await call(bridge.session, API.tokens, {
      body: { name: 'admin scoped', desktops: [notHers.id] },
    });
    expect(admins.status).toBe(201);
    registerSecret((admins.json as CreatedToken).secret);
  });

  it('an API token cannot reach /api/desktops', async () => {
    const response = await fetch(new URL(API.desktops, bridge.url), {
      headers: { authorization: `Bearer ${TOKEN}`, origin: new URL(bridge.url).origin },
    });
    expect(response.status).toBe(401);
  });

  it('the password is in no answer, no audit entry and no log line', async () => {
    await bridge.access.audit.flush();
    const audit = JSON.stringify(await bridge.access.store.audit.query({ limit: 500 }));
    expect(audit).toContain('desktop_created');
    expect(log.text()).not.toBe('');
    for (const secret of [PASSWORD, NEW_PASSWORD]) {
      expect(bodies.join('\n')).not.toContain(secret);
      expect(audit).not.toContain(secret);
      expect(log.text()).not.toContain(secret);
    }
    // Nor the sealed form: it stays in the database.
    const sealed = (await bridge.access.store.desktops.list()).flatMap((d) => d.secret ?? []);
    expect(sealed.length).toBeGreaterThan(0);
    for (const blob of sealed) expect(bodies.join('\n')).not.toContain(blob);
  });
});
