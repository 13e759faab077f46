// Desktop uids are the host's, not one data dir's (desktopUids.ts), for real: two bridges' pools
// on two data dirs start their desktops (bubblewrap, Xvnc) as two different uids, each taken in
// the host-wide record for its own data dir; a claim made before that record whose uid another
// data dir holds moves to a fresh uid with its files; a claim without a recorded owner is never
// handed to whoever owns the desktop now (its HOME is deleted and it starts empty).
import { execFile, spawn } from 'node:child_process';
import { mkdir, mkdtemp, readdir, readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { silentLogger } from '../logger.js';
import { removeDataDir } from '../testing/dataDirs.js';
import { DESKTOP_HOMES_DIR, DesktopHomes } from './desktopHomes.js';
import { DESKTOP_UID_REGISTRY, DesktopUidRegistry, processUids } from './desktopUids.js';
import { LocalDesktopPool } from './localDesktopPool.js';
import { eventually } from '@overlay-companion/gateway/testing';

const run = promisify(execFile);
const isRoot = process.getuid?.() === 0;
const QUOTA = 64 * 1024 * 1024;

const dataDirs: string[] = [];
const pools: LocalDesktopPool[] = [];

async function newDataDir(): Promise<string> {
  const dir = await mkdtemp('/var/tmp/oc-uids-test-data-');
  dataDirs.push(dir);
  return dir;
}

afterAll(async () => {
  for (const pool of pools) await pool.close();
  for (const dir of dataDirs) await removeDataDir(dir);
});

/** Hand-made as a bridge from before would have left it: `<uid>/desktop`, maybe `owner`, a file. */
async function oldClaim(
  homesDir: string,
  uid: number,
  desktopId: string,
  ownerId: string | undefined,
): Promise<string> {
  const home = join(homesDir, String(uid), 'home');
  await mkdir(home, { recursive: true, mode: 0o700 });
  await writeFile(join(homesDir, String(uid), 'desktop'), desktopId);
  if (ownerId !== undefined) await writeFile(join(homesDir, String(uid), 'owner'), ownerId);
  await writeFile(join(home, 'notes.txt'), 'kept');
  await run('chown', ['-R', `${String(uid)}:${String(uid)}`, home]);
  return home;
}

describe.skipIf(!isRoot)('desktop uids on a host with two data dirs', () => {
  it('two bridges’ desktops run as two different uids, each recorded host-wide for its data dir', async () => {
    const running = [];
    for (const dataDir of [await newDataDir(), await newDataDir()]) {
      const allowSocket = () => () => undefined;
      const pool = new LocalDesktopPool({
        dataDir,
        measureHomes: true,
        allowSocket,
        inUse: () => true,
        logger: silentLogger(),
      });
      pools.push(pool);
      await pool.ensure('dsk_same_id', {}, 'prs_same_owner');
      const desktop = await pool.get('dsk_same_id');
      running.push({ dataDir, uid: desktop?.sandbox?.uid ?? 0, pid: desktop?.pid ?? 0 });
    }
    const [one, two] = running;
    expect(one?.uid).toBeGreaterThan(0);
    expect(two?.uid).toBeGreaterThan(0);
    expect(one?.uid).not.toBe(two?.uid);
    for (const { dataDir, uid, pid } of running) {
      const xvnc = await readFile(`/proc/${String(pid)}/status`, 'utf8');
      expect(/^Uid:\s+(\d+)/m.exec(xvnc)?.[1]).toBe(String(uid));
      const holder = await readFile(join(DESKTOP_UID_REGISTRY, String(uid), 'holder'), 'utf8');
      expect(holder).toBe(join(dataDir, DESKTOP_HOMES_DIR));
    }
  }, 60_000);

  it('moves a claim from before the host-wide record to a fresh uid when another data dir has its uid', async () => {
    const first = new DesktopHomes(join(await newDataDir(), DESKTOP_HOMES_DIR), {
      measureOnly: true,
    });
    const taken = await first.ensure('dsk_first', 'prs_first', QUOTA);
    const uid = taken.user?.uid ?? 0;
    // Another data dir whose old claim has the same uid (per-data-dir allocation did that).
    const homesDir = join(await newDataDir(), DESKTOP_HOMES_DIR);
    await oldClaim(homesDir, uid, 'dsk_old', 'prs_old');
    const homes = new DesktopHomes(homesDir, { measureOnly: true });
    const home = await homes.ensure('dsk_old', 'prs_old', QUOTA);
    const moved = home.user?.uid ?? 0;
    expect(moved).not.toBe(uid);
    expect(home.replacedEarlierOwners).toBe(false);
    expect(await readFile(join(home.dir, 'notes.txt'), 'utf8')).toBe('kept');
    expect((await stat(join(home.dir, 'notes.txt'))).uid).toBe(moved);
    expect((await stat(home.dir)).uid).toBe(moved);
    expect(await readdir(homesDir)).not.toContain(String(uid));
    // The first data dir's desktop keeps its uid, and the move is remembered.
    expect((await first.ensure('dsk_first', 'prs_first', QUOTA)).user?.uid).toBe(uid);
    expect((await homes.ensure('dsk_old', 'prs_old', QUOTA)).user?.uid).toBe(moved);
  });

  it('never gives a HOME with no recorded owner to whoever owns the desktop now', async () => {
    const homesDir = join(await newDataDir(), DESKTOP_HOMES_DIR);
    const homes = new DesktopHomes(homesDir, { measureOnly: true });
    // A uid of its own (the record's next), so the claim is this data dir's alone.
    const probe = await homes.ensure('dsk_probe', 'prs_probe', QUOTA);
    const uid = (probe.user?.uid ?? 0) + 1_000;
    const old = await oldClaim(homesDir, uid, 'dsk_ownerless', undefined);
    const home = await homes.ensure('dsk_ownerless', 'prs_now', QUOTA);
    expect(home.replacedEarlierOwners).toBe(true);
    expect(await readdir(home.dir)).toEqual([]);
    expect(home.dir).not.toBe(old);
    // And the sweep's check removes one, too.
    await oldClaim(homesDir, uid + 1, 'dsk_ownerless2', undefined);
    expect(await homes.removeIfNotOwnedBy('dsk_ownerless2', 'prs_now')).toBe(true);
    expect(await homes.owners()).not.toContain('dsk_ownerless2');
  });
});

describe.skipIf(!isRoot)('the host-wide uid record is pruned', () => {
  /** A record of its own (not the machine's), so other tests' entries are not touched. */
  async function registry(): Promise<DesktopUidRegistry> {
    const dir = join(await newDataDir(), 'desktop-uids');
    return new DesktopUidRegistry(dir);
  }

  /** Writes an entry as another bridge's take() would: `<uid>/holder`. */
  async function entry(uids: DesktopUidRegistry, uid: number, holder: string | undefined) {
    await mkdir(join(uids.dir, String(uid)), { recursive: true, mode: 0o700 });
    if (holder !== undefined) await writeFile(join(uids.dir, String(uid), 'holder'), holder);
  }

  const entries = async (uids: DesktopUidRegistry) =>
    (await readdir(uids.dir)).filter((name) => /^\d+$/.test(name)).map(Number);

  it('gives a deleted desktop’s uid back to the record, and never hands the uid out again', async () => {
    const uids = await registry();
    const homes = new DesktopHomes(join(await newDataDir(), DESKTOP_HOMES_DIR), {
      measureOnly: true,
      uids,
    });
    const uid = (await homes.ensure('dsk_gone', 'prs_a', QUOTA)).user?.uid ?? 0;
    const kept = (await homes.ensure('dsk_kept', 'prs_a', QUOTA)).user?.uid ?? 0;
    expect(await entries(uids)).toEqual(expect.arrayContaining([uid, kept]));
    expect(await homes.remove('dsk_gone')).toBe(true);
    expect(await entries(uids)).not.toContain(uid);
    expect(await entries(uids)).toContain(kept);
    const next = (await homes.ensure('dsk_new', 'prs_a', QUOTA)).user?.uid ?? 0;
    expect(next).toBeGreaterThan(kept);
  });

  it('at start prunes its own entries without a claim and those of data dirs that are gone; keeps the rest', async () => {
    const uids = await registry();
    const homesDir = join(await newDataDir(), DESKTOP_HOMES_DIR);
    const homes = new DesktopHomes(homesDir, { measureOnly: true, uids });
    const claimed = (await homes.ensure('dsk_claimed', 'prs_a', QUOTA)).user?.uid ?? 0;
    const other = join(await newDataDir(), DESKTOP_HOMES_DIR);
    await mkdir(other, { recursive: true });
    const base = claimed + 100;
    await entry(uids, base + 1, homesDir); // this data dir's, its claim folder gone (a crash)
    await entry(uids, base + 2, '/var/tmp/oc-uids-test-no-such-data-dir/desktop-homes');
    await entry(uids, base + 3, other); // another bridge's data dir, still there
    await entry(uids, base + 4, undefined); // its taker is between mkdir and the holder
    await entry(uids, base + 5, '/var/tmp/oc-uids-test-no-such-data-dir/desktop-homes');
    // A process still runs as the last one's uid: kept, though its data dir is gone.
    const sleeper = spawn('setpriv', [
      `--reuid=${String(base + 5)}`,
      `--regid=${String(base + 5)}`,
      '--clear-groups',
      'sleep',
      '60',
    ]);
    try {
      await eventually('the process runs as its uid', async () =>
        (await processUids()).has(base + 5),
      );
      // A bridge starting on this data dir again.
      const restarted = new DesktopHomes(homesDir, { measureOnly: true, uids });
      expect((await restarted.ensure('dsk_claimed', 'prs_a', QUOTA)).user?.uid).toBe(claimed);
      expect((await entries(uids)).sort()).toEqual([claimed, base + 3, base + 4, base + 5]);
    } finally {
      sleeper.kill();
    }
  });
});
