// A local desktop record's HOME and user, for real (bubblewrap, Xvnc, a real bridge over HTTP
// for the delete): a file written in desktop A's HOME survives its idle stop and a restart of the
// bridge; desktops A and B run as different uids, so B's processes can neither read A's HOME
// (even given its host path, even with the data dir opened up) nor signal A's processes; the AI
// typing ls/cat of the data dir inside A finds nothing; deleting the desktop through the API
// deletes its HOME, audited, and its uid is never handed out again; a removed person's desktop
// (deleted by the store, not the desktops API) is stopped and its HOME deleted at the next sweep.
import { execFile } from 'node:child_process';
import { chmod, mkdtemp, open, readdir, readFile, stat, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { eventually } from '@overlay-companion/gateway/testing';
import { API } from '@overlay-companion/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { typeInDesktop } from '../files/testing/desktopShell.js';
import { newId } from '../store/ids.js';
import { silentLogger } from '../logger.js';
import { startTestBridge, type TestBridge } from '../mcp/testing/fixtures.js';
import { DESKTOP_HOMES_DIR, DESKTOP_UID_FIRST, DesktopHomes } from './desktopHomes.js';
import { LocalDesktopPool } from './localDesktopPool.js';
import { removeDataDir } from '../testing/dataDirs.js';

const run = promisify(execFile);
/** The HOMEs' quota here: the default's size would do too (images are sparse). */
const QUOTA = 64 * 1024 * 1024;
const isRoot = process.getuid?.() === 0;

/** Runs `command` on the host as `uid` (gid the same), without capabilities or groups. */
const runAs = (uid: number, command: string[]) =>
  run('setpriv', [
    `--reuid=${String(uid)}`,
    `--regid=${String(uid)}`,
    '--clear-groups',
    '--inh-caps=-all',
    '--',
    ...command,
  ]).then(
    () => 0,
    (err: { code?: number }) => err.code ?? -1,
  );

/** The value after `name=` in the lines the typed line wrote. */
const status = (report: string, name: string): string | undefined =>
  new RegExp(`^${name}=(.*)$`, 'm').exec(report)?.[1];

let dataDir: string;
let pool: LocalDesktopPool;
let bridge: TestBridge;

/** A pool over the data dir; a second one over the same dir is the bridge restarted. */
const newPool = (): LocalDesktopPool =>
  new LocalDesktopPool({
    logger: silentLogger(),
    allowSocket: () => () => undefined,
    inUse: () => false,
    dataDir,
    homeQuotaBytes: QUOTA,
    recordOwner: async (id) => (await bridge.access.store.desktops.byId(id))?.ownerId,
  });

/** A member without a password (the store's, as an admin would add one). */
const addMember = (username: string) =>
  bridge.access.store.people.add({
    username,
    displayName: username,
    passwordHash: null,
    role: 'member',
  });

/** A local desktop record made through the API (so deleting it is the real path). */
async function addDesktop(name: string): Promise<string> {
  const made = await bridge.session.request(API.desktops, {
    body: { name, kind: 'local', params: {} },
  });
  expect(made.status).toBe(201);
  return ((await made.json()) as { id: string }).id;
}

/** The record's owner now (what the tunnel passes to ensure). */
async function ownerOf(id: string): Promise<string> {
  const record = await bridge.access.store.desktops.byId(id);
  if (record === undefined) throw new Error(`no desktop ${id}`);
  return record.ownerId;
}

async function running(id: string) {
  await pool.ensure(id, {}, await ownerOf(id));
  const desktop = await pool.get(id);
  if (desktop?.sandbox === undefined) throw new Error('the local desktop did not start sandboxed');
  return { desktop, sandbox: desktop.sandbox };
}

const shellOf = async (id: string) => {
  const { desktop, sandbox } = await running(id);
  return { env: desktop.env, homeOnHost: sandbox.homeDir };
};

beforeAll(async () => {
  // 0700 as serve keeps it; not under /tmp (the sandbox has its own) nor the bridge's HOME
  // (/root is 0700: the host-side uid checks below need a way through to open up).
  dataDir = await mkdtemp('/var/tmp/oc-homes-test-data-');
  await writeFile(join(dataDir, 'overlay-companion.db'), 'the bridge data');
  pool = newPool();
  bridge = await startTestBridge({ localDesktops: pool });
}, 60_000);

afterAll(async () => {
  await bridge?.close();
  await pool?.close();
  await removeDataDir(dataDir);
});

describe('a local desktop’s HOME and user', () => {
  let a: string;
  let b: string;

  beforeAll(async () => {
    a = await addDesktop('Desktop A');
    b = await addDesktop('Desktop B');
  });

  it('keeps HOME in the 0700 data dir under a name that tells nothing, owned by the desktop’s own user', async () => {
    const one = await running(a);
    const two = await running(b);
    const home = one.sandbox.homeDir;
    expect(dirname(dirname(home))).toBe(join(dataDir, DESKTOP_HOMES_DIR));
    expect(home).not.toContain(a);
    expect((await stat(home)).mode & 0o777).toBe(0o700);
    expect((await stat(dirname(home))).mode & 0o777).toBe(0o700);
    expect((await stat(join(dataDir, DESKTOP_HOMES_DIR))).mode & 0o777).toBe(0o700);
    expect((await stat(home)).uid).toBe(one.sandbox.uid);
    if (isRoot) {
      expect(one.sandbox.uid).toBeGreaterThanOrEqual(DESKTOP_UID_FIRST);
      expect(two.sandbox.uid).toBeGreaterThanOrEqual(DESKTOP_UID_FIRST);
      expect(one.sandbox.uid).not.toBe(two.sandbox.uid);
    }
  }, 60_000);

  it('inside, the AI finds its own files in HOME and nothing of the data dir', async () => {
    const { sandbox } = await running(a);
    const steps = [
      'echo "my notes" > ~/notes.txt',
      `ls ${dataDir}; echo data=$?`,
      `ls ${join(dataDir, DESKTOP_HOMES_DIR)}; echo homes=$?`,
      `cat ${join(sandbox.homeDir, 'notes.txt')}; echo hostpath=$?`,
      'echo user=$(id -un) uid=$(id -u)',
    ];
    await typeInDesktop(await shellOf(a), `{ ${steps.join('; ')}; } > ~/report.txt 2>&1`);
    const report = await readFile(join(sandbox.homeDir, 'report.txt'), 'utf8');
    expect(status(report, 'data')).not.toBe('0');
    expect(status(report, 'homes')).not.toBe('0');
    expect(status(report, 'hostpath')).not.toBe('0');
    expect(report).not.toContain('overlay-companion.db');
    expect(report).not.toContain('my notes');
    if (isRoot) expect(report).toContain(`user=desktop uid=${String(sandbox.uid)}`);
    expect(await readFile(join(sandbox.homeDir, 'notes.txt'), 'utf8')).toBe('my notes\n');
  }, 60_000);

  it('desktop B cannot read A’s HOME or signal A’s processes, from inside or as its user on the host', async () => {
    const one = await running(a);
    const two = await running(b);
    const notes = join(one.sandbox.homeDir, 'notes.txt');
    const steps = [
      `cat ${notes}; echo cat=$?`,
      `ls ${one.sandbox.homeDir}; echo ls=$?`,
      `kill -0 ${String(one.desktop.pid)}; echo kill=$?`,
    ];
    await typeInDesktop(await shellOf(b), `{ ${steps.join('; ')}; } > ~/probe.txt 2>&1`);
    const report = await readFile(join(two.sandbox.homeDir, 'probe.txt'), 'utf8');
    for (const step of ['cat', 'ls', 'kill']) expect(status(report, step), step).not.toBe('0');
    expect(report).not.toContain('my notes');
    if (!isRoot) return; // one user for all without root: the uid checks below need root

    // On the host, as B's uid, with the way through the data dir opened up (as a careless
    // operator might): A's HOME is still A's alone. The same commands as A's uid work, so the
    // refusals are the uids', not a broken command.
    const homes = join(dataDir, DESKTOP_HOMES_DIR);
    const opened = [dataDir, homes, dirname(one.sandbox.homeDir)];
    await Promise.all(opened.map((dir) => chmod(dir, 0o711)));
    try {
      expect(await runAs(one.sandbox.uid, ['cat', notes])).toBe(0);
      expect(await runAs(two.sandbox.uid, ['cat', notes])).not.toBe(0);
      expect(await runAs(one.sandbox.uid, ['kill', '-0', String(one.desktop.pid)])).toBe(0);
      expect(await runAs(two.sandbox.uid, ['kill', '-0', String(one.desktop.pid)])).not.toBe(0);
    } finally {
      await Promise.all(opened.map((dir) => chmod(dir, 0o700)));
    }
  }, 60_000);

  it('keeps A’s files through an idle stop and a restart of the bridge', async () => {
    const first = await running(a);
    await pool.stopIdle(Date.now() + 24 * 60 * 60_000);
    expect(await pool.get(a)).toBeUndefined();
    // As root the HOME is a file system of its own (homeQuota.ts), unmounted while it is stopped:
    // its files are read again below, once it runs.

    // A new pool over the same data dir is the bridge restarted.
    const restarted = newPool();
    try {
      await restarted.ensure(a, {}, await ownerOf(a));
      const again = await restarted.get(a);
      if (again?.sandbox === undefined) throw new Error('A did not start again sandboxed');
      expect(again.pid).not.toBe(first.desktop.pid);
      expect(again.sandbox.homeDir).toBe(first.sandbox.homeDir);
      expect(again.sandbox.uid).toBe(first.sandbox.uid);
      const shell = { env: again.env, homeOnHost: again.sandbox.homeDir };
      await typeInDesktop(shell, 'cat ~/notes.txt > ~/seen.txt');
      expect(await readFile(join(again.sandbox.homeDir, 'seen.txt'), 'utf8')).toBe('my notes\n');
    } finally {
      await restarted.close();
    }
  }, 90_000);

  it('deleting the desktop through the API deletes its HOME, audited, and never hands its uid out again', async () => {
    const one = await running(a);
    const claim = dirname(one.sandbox.homeDir);
    const removed = await bridge.session.request(`${API.desktops}/${a}`, { method: 'DELETE' });
    expect(removed.status).toBe(200);
    await eventually('the deleted desktop’s HOME gone', () =>
      stat(claim).then(
        () => false,
        () => true,
      ),
    );
    expect(await pool.get(a)).toBeUndefined();
    // Audit entries are written behind.
    const entry = await eventually('the removal’s audit entry', async () =>
      (await bridge.access.store.audit.query({ kind: 'desktop_removed', limit: 10 })).find((e) =>
        (e.summary ?? '').includes(a),
      ),
    );
    expect(entry.detail).toMatch(/home folder/);

    const homes = new DesktopHomes(join(dataDir, DESKTOP_HOMES_DIR));
    const next = await homes.ensure('dsk_after_delete', 'prs_someone', QUOTA);
    if (isRoot) {
      expect(next.user?.uid).not.toBe(one.sandbox.uid);
      expect(next.user?.uid).toBeGreaterThan(one.sandbox.uid);
    }
    expect(await homes.remove('dsk_after_delete')).toBe(true);
    expect(await homes.remove('dsk_after_delete')).toBe(false);
    const left = await readdir(join(dataDir, DESKTOP_HOMES_DIR));
    expect(left.filter((name) => /^\d+$/.test(name))).toHaveLength(1); // B's alone
  }, 60_000);
});

describe('a local desktop given to another person', () => {
  it('starts for the new owner with a fresh uid and an empty HOME: the old owner’s files are deleted, said in the answer and the audit', async () => {
    const { store } = bridge.access;
    const heir = await addMember('heir');
    const id = await addDesktop('Handed on');
    const old = await running(id);
    await typeInDesktop(await shellOf(id), 'echo "old owner’s secret" > ~/old-owner.txt');
    const oldHome = old.sandbox.homeDir;

    const given = await bridge.session.request(`${API.desktops}/${id}`, {
      method: 'PATCH',
      body: { owner_id: heir.id },
    });
    expect(given.status).toBe(200);
    const answer = (await given.json()) as { notice?: string };
    expect(answer.notice).toMatch(/files .* not transferred/);
    const entry = await eventually('the transfer’s audit entry', async () =>
      (await store.audit.query({ kind: 'desktop_changed', limit: 10 })).find((e) =>
        (e.detail ?? '').includes('owner now heir'),
      ),
    );
    expect(entry.detail).toMatch(/not transferred: they are deleted/);
    // The runtime stops the old owner’s desktop and deletes its HOME (on disk: nothing left).
    await eventually('the old owner’s HOME gone', () =>
      stat(dirname(oldHome)).then(
        () => false,
        () => true,
      ),
    );
    expect(await pool.get(id)).toBeUndefined();

    const now = await running(id);
    expect(now.desktop.pid).not.toBe(old.desktop.pid);
    expect(now.sandbox.homeDir).not.toBe(oldHome);
    if (isRoot) expect(now.sandbox.uid).toBeGreaterThan(old.sandbox.uid ?? Infinity);
    const steps = [
      'ls -A ~; echo ls=$?',
      'cat ~/old-owner.txt; echo home=$?',
      `cat ${join(oldHome, 'old-owner.txt')}; echo hostpath=$?`,
    ];
    await typeInDesktop(await shellOf(id), `{ ${steps.join('; ')}; } > ~/probe.txt 2>&1`);
    const report = await readFile(join(now.sandbox.homeDir, 'probe.txt'), 'utf8');
    expect(status(report, 'ls')).toBe('0');
    expect(status(report, 'home')).not.toBe('0');
    expect(status(report, 'hostpath')).not.toBe('0');
    expect(report).not.toContain('secret');
    expect(report).not.toContain('old-owner.txt\n');
    const found = await run('grep', ['-rl', 'old owner’s secret', join(dataDir, DESKTOP_HOMES_DIR)])
      .then((r) => r.stdout)
      .catch(() => '');
    expect(found).toBe('');
    if (isRoot) expect(await runAs(now.sandbox.uid, ['test', '-e', oldHome])).not.toBe(0);
  }, 90_000);
});

describe('a removed person’s local desktop', () => {
  it('is stopped and its HOME deleted at the next sweep (the store deletes their desktops)', async () => {
    const { store } = bridge.access;
    const person = await addMember('leaver');
    const id = newId('dsk');
    await store.desktops.add({
      id,
      name: 'Leaver’s desktop',
      kind: 'local',
      params: {},
      secret: null,
      ownerId: person.id,
    });
    const { desktop, sandbox } = await running(id);
    await writeFile(join(sandbox.homeDir, 'private.txt'), 'leaver’s');
    const before = await pool.stopIdle(Date.now()).then(() => pool.get(id));
    expect(before).toBe(desktop); // its record exists: kept

    const removed = await bridge.session.request(`${API.people}/${person.id}`, {
      method: 'DELETE',
    });
    expect(removed.status).toBe(200);
    await pool.stopIdle(Date.now());
    expect(await pool.get(id)).toBeUndefined();
    await expect(stat(dirname(sandbox.homeDir))).rejects.toThrow(/ENOENT/);
    // Others' HOMEs stay.
    const owners = await new DesktopHomes(join(dataDir, DESKTOP_HOMES_DIR)).owners();
    expect(owners.length).toBeGreaterThan(0);
    expect(owners).not.toContain(id);
  }, 60_000);
});

describe('DesktopHomes', () => {
  it('gives one desktop one uid however many ask at once, and two desktops two', async () => {
    const root = await mkdtemp('/var/tmp/oc-homes-unit-');
    const homes = new DesktopHomes(root);
    try {
      const [x1, x2, y] = await Promise.all([
        homes.ensure('dsk_x', 'prs_p', QUOTA),
        homes.ensure('dsk_x', 'prs_p', QUOTA),
        homes.ensure('dsk_y', 'prs_p', QUOTA),
      ]);
      expect(x1.dir).toBe(x2.dir);
      expect(x1.dir).not.toBe(y.dir);
      if (isRoot) {
        expect(x1.user).toEqual(x2.user);
        expect(x1.user?.uid).not.toBe(y.user?.uid);
      }
      // Another instance (a restarted bridge) finds the same.
      expect((await new DesktopHomes(root).ensure('dsk_x', 'prs_p', QUOTA)).dir).toBe(x1.dir);
    } finally {
      await Promise.all(['dsk_x', 'dsk_y'].map((id) => homes.remove(id)));
      await removeDataDir(root);
    }
  });

  it.skipIf(!isRoot)(
    'refuses to start a desktop on the empty folder when its home’s file system does not mount',
    async () => {
      const root = await mkdtemp('/var/tmp/oc-homes-unit-');
      const homes = new DesktopHomes(root);
      try {
        const home = await homes.ensure('dsk_c', 'prs_p', QUOTA);
        await writeFile(join(home.dir, 'kept.txt'), 'in the image');
        await homes.release('dsk_c');
        // Its superblock overwritten: the image no longer mounts.
        const image = join(dirname(home.dir), 'home.img');
        const handle = await open(image, 'r+');
        await handle.write(Buffer.alloc(4096), 0, 4096, 0);
        await handle.close();
        await expect(homes.ensure('dsk_c', 'prs_p', QUOTA)).rejects.toThrow(/could not be mounted/);
      } finally {
        await homes.remove('dsk_c');
        await removeDataDir(root);
      }
    },
  );

  it('hands a desktop given to another owner a new uid and an empty HOME, the old one deleted', async () => {
    const root = await mkdtemp('/var/tmp/oc-homes-unit-');
    const homes = new DesktopHomes(root);
    try {
      const before = await homes.ensure('dsk_x', 'prs_old', QUOTA);
      await writeFile(join(before.dir, 'old-owner.txt'), 'the old owner’s');
      expect(before.replacedEarlierOwners).toBe(false);
      // No stop, no reconcile in between: ensure alone must not hand the old HOME over.
      const after = await homes.ensure('dsk_x', 'prs_new', QUOTA);
      expect(after.replacedEarlierOwners).toBe(true);
      expect(after.dir).not.toBe(before.dir);
      if (isRoot) expect(after.user?.uid).toBeGreaterThan(before.user?.uid ?? Infinity);
      expect(await readdir(after.dir)).toEqual([]);
      await expect(stat(dirname(before.dir))).rejects.toThrow(/ENOENT/);
      expect(await homes.removeIfNotOwnedBy('dsk_x', 'prs_new')).toBe(false);
      expect(await readdir(after.dir)).toEqual([]);
    } finally {
      await homes.remove('dsk_x');
      await removeDataDir(root);
    }
  });
});
