// Accounts over the real HTTP API: first-run setup with the one-time code, sign-in and sign-out,
// changing one's password (other sessions end), admins adding, disabling and removing people
// (and never the last admin), and a person's permission toggles reaching their open windows.
import { API, type Me, type PersonView } from '@overlay-companion/protocol';
import { afterEach, describe, expect, it } from 'vitest';
import { startWithDesktopControl } from '../bridge.js';
import { startTestBridge, type TestBridge } from '../mcp/testing/fixtures.js';
import { ScriptedViewer } from '../mcp/testing/scriptedViewer.js';
import { waitUntil } from '../mcp/testing/wait.js';
import { signIn, originOf } from '../testing/browserSession.js';
import { startTestAccess, type TestAccess } from '../testing/testAccess.js';

const closers: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
});

async function bridge(): Promise<TestBridge> {
  const b = await startTestBridge();
  closers.push(() => b.close());
  return b;
}

async function post(base: string, path: string, body: unknown): Promise<Response> {
  return fetch(new URL(path, base), {
    method: 'POST',
    headers: { 'content-type': 'application/json', origin: originOf(base) },
    body: JSON.stringify(body),
  });
}

describe('first run', () => {
  let fixture: TestAccess;

  async function firstRunBridge(): Promise<{ url: string; code: string }> {
    fixture = await startTestAccess({ admin: false });
    const running = await startWithDesktopControl(
      {
        host: '127.0.0.1',
        port: 0,
        dataDir: fixture.dataDir,
        webRoot: fixture.dataDir,
        guacd: { host: '127.0.0.1', port: 9 },
        connection: { protocol: 'vnc', params: {} },
      },
      { access: fixture.access },
    );
    closers.push(
      () => fixture.close(),
      () => running.close(),
    );
    return { url: running.url, code: fixture.access.setup.issue() };
  }

  it('creates the admin once with the setup code, and signs them in', async () => {
    const { url, code } = await firstRunBridge();
    const state = await fetch(new URL(API.authState, url));
    expect(await state.json()).toMatchObject({ setup_needed: true, signed_in: false });
    const admin = { username: 'Root', display_name: 'Rita', password: 'correct horse battery' };

    const wrong = await post(url, API.setup, { ...admin, code: 'not-the-code' });
    expect(wrong.status).toBe(403);
    expect(((await wrong.json()) as { field?: string }).field).toBe('code');
    // A bad body does not use the code up.
    expect((await post(url, API.setup, { ...admin, code, password: 'short' })).status).toBe(400);

    const made = await post(url, API.setup, { ...admin, code });
    expect(made.status).toBe(200);
    const me = (await made.json()) as Me;
    expect(me.person).toMatchObject({ username: 'root', display_name: 'Rita', role: 'admin' });
    expect(made.headers.get('set-cookie')).toMatch(/^oc_session=[^;]+; .*HttpOnly/);

    expect((await post(url, API.setup, { ...admin, username: 'second', code })).status).toBe(409);
    expect(await (await fetch(new URL(API.authState, url))).json()).toMatchObject({
      setup_needed: false,
    });
    await expect(signIn(url, 'root', admin.password)).resolves.toBeDefined();
  });
});

describe('signing in and out', () => {
  it('refuses a wrong password with one message for every reason, and signs the right one in', async () => {
    const b = await bridge();
    for (const [username, password] of [
      ['admin', 'wrong password!!'],
      ['nobody-here', 'wrong password!!'],
    ]) {
      const res = await post(b.url, API.signIn, { username, password });
      expect(res.status).toBe(401);
      expect(((await res.json()) as { error: string }).error).toBe('Wrong username or password.');
    }
    expect(b.session.me.person.username).toBe('admin');
    expect(b.session.me.session.method).toBe('password');
  });

  it('signing out ends the session: the cookie stops working and its viewer socket closes', async () => {
    const b = await bridge();
    const session = await signIn(b.url, 'admin', 'admin-password-0123456789');
    const viewer = await ScriptedViewer.connect(session);
    expect((await session.request(API.me)).status).toBe(200);
    expect((await session.request(API.signOut, { body: {} })).status).toBe(200);
    expect((await session.request(API.me)).status).toBe(401);
    await waitUntil(() => viewer.closed, 5000);
    // The fixture's own session is untouched.
    expect((await b.session.request(API.me)).status).toBe(200);
  });
});

describe('changing one own password', () => {
  it('needs the current password, signs out the other sessions, and the new password works', async () => {
    const b = await bridge();
    const other = await signIn(b.url, 'admin', 'admin-password-0123456789');
    const wrong = await b.session.request(API.myPassword, {
      method: 'PUT',
      body: { current_password: 'nope', new_password: 'a brand new password' },
    });
    expect(wrong.status).toBe(403);
    const ok = await b.session.request(API.myPassword, {
      method: 'PUT',
      body: { current_password: 'admin-password-0123456789', new_password: 'a brand new password' },
    });
    expect(ok.status).toBe(200);
    expect((await b.session.request(API.me)).status).toBe(200);
    expect((await other.request(API.me)).status).toBe(401);
    await expect(signIn(b.url, 'admin', 'admin-password-0123456789')).rejects.toThrow(/401/);
    await expect(signIn(b.url, 'admin', 'a brand new password')).resolves.toBeDefined();
  });
});

describe('people (admins)', () => {
  it('adds a member who can sign in but not manage people; disabling ends their sessions', async () => {
    const b = await bridge();
    const added = await b.session.request(API.people, {
      body: { username: 'Mia', display_name: 'Mia M.', password: 'mia-password-123' },
    });
    expect(added.status).toBe(201);
    const mia = (await added.json()) as PersonView;
    expect(mia).toMatchObject({
      username: 'mia',
      role: 'member',
      disabled: false,
      has_password: true,
    });

    const session = await signIn(b.url, 'mia', 'mia-password-123');
    expect((await session.request(API.people)).status).toBe(403);
    // A window needs a desktop: mia watches the admin's once granted one.
    const desktopId = await b.desktopControl.directory.cliDesktopId();
    const granted = await b.session.request(`${API.desktops}/${desktopId ?? ''}/grants/${mia.id}`, {
      method: 'PUT',
      body: { level: 'view' },
    });
    expect(granted.status).toBeLessThan(300);
    const viewer = await ScriptedViewer.connect(session);

    const disabled = await b.session.request(`${API.people}/${mia.id}`, {
      method: 'PATCH',
      body: { disabled: true },
    });
    expect(disabled.status).toBe(200);
    expect((await session.request(API.me)).status).toBe(401);
    await waitUntil(() => viewer.closed, 5000);
    await expect(signIn(b.url, 'mia', 'mia-password-123')).rejects.toThrow(/401/);

    expect((await b.session.request(`${API.people}/${mia.id}`, { method: 'DELETE' })).status).toBe(
      200,
    );
    const list = (await (await b.session.request(API.people)).json()) as { people: PersonView[] };
    expect(list.people.map((p) => p.username)).toEqual(['admin']);
  });

  it('never demotes, disables or removes the last active admin', async () => {
    const b = await bridge();
    const id = b.admin.id;
    for (const [method, body] of [
      ['PATCH', { role: 'member' }],
      ['PATCH', { disabled: true }],
      ['DELETE', undefined],
    ] as const) {
      const res = await b.session.request(`${API.people}/${id}`, { method, body });
      expect(res.status, method).toBe(409);
      expect(((await res.json()) as { error: string }).error).toMatch(/last active admin/);
    }
    expect((await b.session.request(API.me)).status).toBe(200);
  });

  it('refuses a taken username, naming the field', async () => {
    const b = await bridge();
    const res = await b.session.request(API.people, {
      body: { username: 'ADMIN', password: 'some-password-1' },
    });
    expect(res.status).toBe(409);
    expect(((await res.json()) as { field?: string }).field).toBe('username');
  });

  it('refuses a person who could never sign in (no password, no OpenID Connect), naming the field', async () => {
    const b = await bridge();
    const res = await b.session.request(API.people, { body: { username: 'ghost' } });
    expect(res.status).toBe(400);
    const body = (await res.json()) as { error: string; field?: string };
    expect(body.field).toBe('password');
    expect(body.error).toMatch(/could never sign in: give them a password/);
    expect(await b.access.store.people.byUsername('ghost')).toBeUndefined();
  });
});

describe('permission toggles', () => {
  it("applies a change at once to the person's open windows and records it", async () => {
    const b = await bridge();
    const viewer = await ScriptedViewer.connect(b);
    expect(viewer.hello.permissions.clipboard_read).toBe(false);
    const res = await b.session.request(API.myPermissions, {
      method: 'PUT',
      body: { clipboard_read: true },
    });
    expect(res.status).toBe(200);
    expect(((await res.json()) as { clipboard_read: boolean }).clipboard_read).toBe(true);
    await viewer.waitFor((m) => m.type === 'permissions_changed' && m.permissions.clipboard_read);
    expect(b.adminPlane.permissions().clipboard_read).toBe(true);
    await viewer.close();
    await b.access.audit.flush();
    const [entry] = await b.access.store.audit.query({ kind: 'permissions_changed', limit: 1 });
    expect(entry?.detail).toBe('Let the AI read the clipboard: on');
  });
});
