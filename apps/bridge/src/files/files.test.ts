// File transfer to and from a real sandboxed local desktop, through a real bridge over HTTP
// (sign-in, CSRF, Host/Origin as browsers meet them, SQLite): a file sent lands in the desktop's
// ~/Transfer as the desktop's user and reads the same from inside (sha256sum typed into its
// xterm); a file made inside comes back byte-identical; a cancelled upload leaves nothing; a file
// over the limit is refused before a byte is read; and what the desktop's user (its AI, from its
// xterm) plants in the folder — symlinks to the host's files, a symlink in place of the folder,
// a FIFO — is never followed. Each transfer is one audit entry.
import { createHash, randomBytes } from 'node:crypto';
import { request as httpRequest } from 'node:http';
import { lstat, readdir, readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { LocalDesktop } from '@overlay-companion/gateway';
import { eventually } from '@overlay-companion/gateway/testing';
import { API, CSRF_HEADER, FILES_API, type TransferListing } from '@overlay-companion/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashPassword } from '../auth/passwords.js';
import { LocalDesktopPool } from '../desktops/localDesktopPool.js';
import { silentLogger } from '../logger.js';
import { startTestBridge, TOKEN, type TestBridge } from '../mcp/testing/fixtures.js';
import type { AuditRecord } from '../store/types.js';
import { signIn, type BrowserSession } from '../testing/browserSession.js';
import { typeInDesktop, type DesktopShell } from './testing/desktopShell.js';

const PASSWORD = 'another-password-0123456789';
const MAX = 24 * 1024 * 1024;
const sha = (data: Buffer): string => createHash('sha256').update(data).digest('hex');

let bridge: TestBridge;
let pool: LocalDesktopPool;
let desktopId: string;
let desktop: LocalDesktop;
let shell: DesktopShell;
let folder: string;
let controller: BrowserSession; // control grant, not in charge
let watcher: BrowserSession; // view grant
let stranger: BrowserSession; // no grant

/** An upload as `session`'s browser: raw bytes, Content-Length, CSRF. */
const upload = (
  session: BrowserSession,
  name: string,
  data: Buffer,
  headers: Record<string, string> = {},
): Promise<Response> =>
  fetch(new URL(FILES_API.file(desktopId, name), session.url), {
    method: 'PUT',
    body: data,
    headers: {
      origin: new URL(session.url).origin,
      cookie: session.cookie,
      [CSRF_HEADER]: session.csrf,
      'content-type': 'application/octet-stream',
      ...headers,
    },
  });

const listing = async (session: BrowserSession): Promise<TransferListing> =>
  (await (await session.request(FILES_API.list(desktopId))).json()) as TransferListing;

const transfers = async (): Promise<AuditRecord[]> =>
  bridge.access.store.audit.query({ kind: 'file_transfer', limit: 100 });

/** Waits for the audit entry whose summary names `name` (entries are written behind). */
const auditOf = (name: string, outcome?: RegExp): Promise<AuditRecord> =>
  eventually(`the audit entry of ${name}`, async () =>
    (await transfers()).find(
      (e) =>
        (e.summary ?? '').includes(JSON.stringify(name)) &&
        (outcome === undefined || outcome.test(e.outcome ?? '')),
    ),
  );

beforeAll(async () => {
  pool = new LocalDesktopPool({
    logger: silentLogger(),
    allowSocket: () => () => undefined,
    inUse: () => true,
  });
  bridge = await startTestBridge({ localDesktops: pool, files: { maxBytes: MAX } });
  const made = await bridge.session.request(API.desktops, {
    body: { name: 'Agent 1', kind: 'local', params: {} },
  });
  expect(made.status).toBe(201);
  desktopId = ((await made.json()) as { id: string }).id;
  await pool.ensure(
    desktopId,
    {},
    (await bridge.access.store.desktops.byId(desktopId))?.ownerId ?? '',
  );
  const running = await pool.get(desktopId);
  if (running?.sandbox === undefined) throw new Error('the local desktop did not start sandboxed');
  desktop = running;
  shell = { env: running.env, homeOnHost: running.sandbox.homeDir };
  folder = join(running.sandbox?.homeDir ?? '', 'Transfer');

  const { store } = bridge.access;
  const hash = await hashPassword(PASSWORD);
  for (const username of ['bea', 'cy', 'dan'])
    await store.people.add({ username, displayName: username, passwordHash: hash, role: 'member' });
  await store.desktops.setGrant(
    desktopId,
    (await store.people.byUsername('bea'))?.id ?? '',
    'control',
  );
  await store.desktops.setGrant(desktopId, (await store.people.byUsername('cy'))?.id ?? '', 'view');
  controller = await signIn(bridge.url, 'bea', PASSWORD);
  watcher = await signIn(bridge.url, 'cy', PASSWORD);
  stranger = await signIn(bridge.url, 'dan', PASSWORD);
}, 120_000);

afterAll(async () => {
  await bridge?.close();
  await pool?.close();
});

describe('sending a file to a local desktop', () => {
  it('lands in ~/Transfer as the desktop user, and reads the same from inside the desktop', async () => {
    const data = randomBytes(MAX - 1024);
    const sent = await upload(bridge.session, 'report one.bin', data);
    expect(sent.status).toBe(201);
    expect(await sent.json()).toEqual({
      name: 'report one.bin',
      size: data.length,
      sha256: sha(data),
    });

    const info = await stat(join(folder, 'report one.bin'));
    expect(info.uid).toBe(desktop.sandbox?.uid);
    expect((await readdir(folder)).filter((n) => n.startsWith('.oc-upload-'))).toEqual([]);

    // From inside: the desktop's own sha256sum of its own path.
    await typeInDesktop(shell, "sha256sum ~/Transfer/'report one.bin' > ~/Transfer/inside.txt");
    const inside = await bridge.session.request(FILES_API.file(desktopId, 'inside.txt'));
    expect(inside.status).toBe(200);
    expect((await inside.text()).split(' ')[0]).toBe(sha(data));

    const entry = await auditOf('report one.bin');
    expect(entry).toMatchObject({ personName: bridge.admin.displayName, outcome: 'ok' });
    expect(entry.detail).toContain(`sha256=${sha(data)}`);
    expect(entry.detail).toContain(`direction=upload`);
    expect(entry.detail).toContain(`size=${data.length}`);
    expect(entry.detail).toContain(`desktop=${desktopId}`);
  }, 120_000);

  it('lists the folder for the person in charge, with its path inside the desktop', async () => {
    const list = await listing(bridge.session);
    expect(list).toMatchObject({
      folder: '/home/desktop/Transfer',
      may_transfer: true,
      in_charge: true,
      max_bytes: MAX,
    });
    expect(list.files.map((f) => f.name)).toEqual(
      expect.arrayContaining(['inside.txt', 'report one.bin']),
    );
  });

  it('refuses a file over the limit from its Content-Length, before reading it, with the limit named', async () => {
    const answer = await new Promise<{ status: number; body: string }>((resolve, reject) => {
      const req = httpRequest(new URL(FILES_API.file(desktopId, 'huge.bin'), bridge.url), {
        method: 'PUT',
        headers: {
          origin: new URL(bridge.url).origin,
          cookie: bridge.session.cookie,
          [CSRF_HEADER]: bridge.session.csrf,
          'content-type': 'application/octet-stream',
          'content-length': String(MAX + 1),
        },
      });
      req.on('response', (res) => {
        let body = '';
        res.on('data', (d: Buffer) => (body += d.toString()));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      });
      req.on('error', reject);
      req.write(randomBytes(1024)); // never the rest: the answer must not wait for it
    });
    expect(answer.status).toBe(413);
    expect(answer.body).toContain('at most 24 MiB');
    expect(await readdir(folder)).not.toContain('huge.bin');
  });

  it('keeps nothing of a cancelled upload, and audits it as cancelled', async () => {
    const req = httpRequest(new URL(FILES_API.file(desktopId, 'cancelled.bin'), bridge.url), {
      method: 'PUT',
      headers: {
        origin: new URL(bridge.url).origin,
        cookie: bridge.session.cookie,
        [CSRF_HEADER]: bridge.session.csrf,
        'content-type': 'application/octet-stream',
        'content-length': String(8 * 1024 * 1024),
      },
    });
    req.on('error', () => undefined);
    req.write(randomBytes(2 * 1024 * 1024));
    // Once the partial file holds bytes, the browser goes away.
    await eventually('the partial file', async () => {
      for (const name of await readdir(folder))
        if (name.startsWith('.oc-upload-') && (await lstat(join(folder, name))).size > 0)
          return true;
      return undefined;
    });
    req.destroy();
    await auditOf('cancelled.bin', /^cancelled/);
    expect(
      (await readdir(folder)).filter((n) => n === 'cancelled.bin' || n.startsWith('.oc-upload-')),
    ).toEqual([]);
  });

  it('refuses a name that is a path, and a name already taken', async () => {
    for (const name of ['../escape.bin', 'a/b', '..', '.oc-upload-x']) {
      const res = await upload(bridge.session, name, Buffer.from('x'));
      // 415: the URL's own .. took the request off the file routes before it got here.
      expect([400, 404, 415], name).toContain(res.status);
    }
    expect(await readdir(join(folder, '..'))).not.toContain('escape.bin');
    const again = await upload(bridge.session, 'inside.txt', Buffer.from('mine'));
    expect(again.status).toBe(409);
    expect(await again.json()).toMatchObject({
      error: expect.stringContaining('already') as string,
    });
  });
});

describe('fetching a file from a local desktop', () => {
  it('gives back what the desktop made, byte-identical, and audits it', async () => {
    await typeInDesktop(shell, 'head -c 20000000 /dev/urandom > ~/Transfer/made.bin');
    const onHost = await readFile(join(folder, 'made.bin'));
    const res = await bridge.session.request(FILES_API.file(desktopId, 'made.bin'));
    expect(res.status).toBe(200);
    expect(res.headers.get('content-disposition')).toBe(`attachment; filename*=UTF-8''made.bin`);
    const got = Buffer.from(await res.arrayBuffer());
    expect(got.length).toBe(20_000_000);
    expect(sha(got)).toBe(sha(onHost));
    const entry = await auditOf('made.bin');
    expect(entry.detail).toContain(`direction=download`);
    expect(entry.detail).toContain(`sha256=${sha(onHost)}`);
  }, 120_000);
});

describe("what the desktop's user plants in the folder", () => {
  it('never follows a symlink to a host file, nor opens a FIFO, nor reads a folder', async () => {
    // As the AI would, from the desktop's own xterm: links to files the sandbox shows (read-only
    // binds of the host's /etc) and a FIFO whose open would hang a careless reader.
    await typeInDesktop(
      shell,
      'ln -s /etc/shadow ~/Transfer/shadow; ln -s /etc/hostname ~/Transfer/host; mkfifo ~/Transfer/fifo; mkdir ~/Transfer/dir',
    );
    for (const name of ['shadow', 'host', 'fifo', 'dir']) {
      const res = await bridge.session.request(FILES_API.file(desktopId, name));
      expect(res.status, name).toBe(400);
      const text = await res.text();
      expect(text).not.toContain((await readFile('/etc/hostname', 'utf8')).trim() || 'never');
    }
    const names = (await listing(bridge.session)).files.map((f) => f.name);
    for (const name of ['shadow', 'host', 'fifo', 'dir']) expect(names).not.toContain(name);
    // Writing through a planted link's name is refused; the host file is untouched.
    const before = await readFile('/etc/hostname');
    const res = await upload(bridge.session, 'host', Buffer.from('overwritten'));
    expect(res.status).toBe(409);
    expect(await readFile('/etc/hostname')).toEqual(before);
  }, 120_000);

  it('refuses a folder replaced by a symlink, writing nothing where it points', async () => {
    await typeInDesktop(shell, 'mv ~/Transfer ~/Moved && ln -s /tmp ~/Transfer');
    const sent = await upload(bridge.session, 'planted.bin', Buffer.from('x'));
    expect(sent.status).toBe(409);
    expect(await sent.text()).toContain('not a folder');
    const list = await bridge.session.request(FILES_API.list(desktopId));
    expect(list.status).toBe(409);
    expect(await readdir('/tmp')).not.toContain('planted.bin');
    await typeInDesktop(shell, 'rm ~/Transfer && mv ~/Moved ~/Transfer');
  }, 120_000);
});

describe('who may transfer', () => {
  it('refuses someone without a grant as if the desktop did not exist', async () => {
    expect((await stranger.request(FILES_API.list(desktopId))).status).toBe(404);
    expect((await upload(stranger, 'x.bin', Buffer.from('x'))).status).toBe(404);
    expect((await stranger.request(FILES_API.file(desktopId, 'made.bin'))).status).toBe(404);
  });

  it('refuses a view grant, and shows it no names', async () => {
    const list = await listing(watcher);
    expect(list).toMatchObject({ may_transfer: false, files: [] });
    expect(list.why_not).toContain('watch');
    expect((await upload(watcher, 'x.bin', Buffer.from('x'))).status).toBe(403);
    expect((await watcher.request(FILES_API.file(desktopId, 'made.bin'))).status).toBe(403);
  });

  it('refuses others with control until the person in charge lets them, and only they decide', async () => {
    expect((await upload(controller, 'bea.bin', Buffer.from('bea'))).status).toBe(403);
    const mine = await controller.request(FILES_API.policy(desktopId), {
      method: 'PUT',
      body: { others_may_transfer: true },
    });
    expect(mine.status).toBe(403);
    const allowed = await bridge.session.request(FILES_API.policy(desktopId), {
      method: 'PUT',
      body: { others_may_transfer: true },
    });
    expect(allowed.status).toBe(200);
    expect((await listing(controller)).may_transfer).toBe(true);
    expect((await upload(controller, 'bea.bin', Buffer.from('bea'))).status).toBe(201);
    expect((await auditOf('bea.bin')).personName).toBe('bea');
    // Still never a view grant.
    expect((await upload(watcher, 'cy.bin', Buffer.from('cy'))).status).toBe(403);
    await bridge.session.request(FILES_API.policy(desktopId), {
      method: 'PUT',
      body: { others_may_transfer: false },
    });
    expect((await upload(controller, 'bea2.bin', Buffer.from('bea'))).status).toBe(403);
  });

  it('refuses an upload without the CSRF token, or from a page on another origin', async () => {
    const noCsrf = await upload(bridge.session, 'csrf.bin', Buffer.from('x'), {
      [CSRF_HEADER]: '',
    });
    expect(noCsrf.status).toBe(403);
    const foreign = await upload(bridge.session, 'csrf.bin', Buffer.from('x'), {
      origin: 'https://evil.example',
    });
    expect(foreign.status).toBe(403);
    const read = await bridge.session.request(FILES_API.file(desktopId, 'made.bin'), {
      headers: { origin: 'https://evil.example' },
    });
    expect(read.status).toBe(403);
    expect(await readdir(folder)).not.toContain('csrf.bin');
  });

  it("refuses the AI's token: the AI has no way to move files", async () => {
    const auth = { authorization: `Bearer ${TOKEN}` };
    expect(
      (await fetch(new URL(FILES_API.list(desktopId), bridge.url), { headers: auth })).status,
    ).toBe(401);
    const put = await fetch(new URL(FILES_API.file(desktopId, 'ai.bin'), bridge.url), {
      method: 'PUT',
      headers: { ...auth, 'content-type': 'application/octet-stream' },
      body: 'x',
    });
    expect(put.status).toBe(401);
    const get = await fetch(new URL(FILES_API.file(desktopId, 'made.bin'), bridge.url), {
      headers: auth,
    });
    expect(get.status).toBe(401);
    expect(await readdir(folder)).not.toContain('ai.bin');
  });
});
