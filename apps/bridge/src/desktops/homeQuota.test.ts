// A local desktop's HOME quota, for real (bubblewrap, Xvnc, a shell line typed into the desktop's
// xterm as its AI would): as root the HOME is a size-limited file system, so writing past the
// quota fails inside the desktop while it, another desktop and the bridge's data dir go on; where
// the limit is only measured, a desktop over it is stopped at the sweep (reported for the audit)
// and refused a start in words, and the other desktop keeps running.
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { eventually } from '@overlay-companion/gateway/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { typeInDesktop } from '../files/testing/desktopShell.js';
import { silentLogger } from '../logger.js';
import { DesktopReachError } from './errors.js';
import { MEASURED_BYTES_PER_FILE } from './homeQuota.js';
import { LocalDesktopPool } from './localDesktopPool.js';
import { removeDataDir } from '../testing/dataDirs.js';

const run = promisify(execFile);
const isRoot = process.getuid?.() === 0;
const MiB = 1024 * 1024;
const QUOTA = 16 * MiB;

/** Typed into the desktop: writes 32 MiB to ~/big, and reports dd's status and the bytes kept. */
const FILL =
  'dd if=/dev/zero of=~/big bs=1M count=32 2>/dev/null; r=$?; s=$(stat -c %s ~/big); echo dd=$r size=$s > ~/report.txt';

const status = (report: string, name: string): string | undefined =>
  new RegExp(`${name}=(\\S*)`).exec(report)?.[1];

let dataDir: string;
const pools: LocalDesktopPool[] = [];

function newPool(options: {
  measureHomes?: boolean;
  onOverQuota?: (id: string, used: number) => void;
}) {
  const pool = new LocalDesktopPool({
    logger: silentLogger(),
    allowSocket: () => () => undefined,
    inUse: () => true,
    dataDir,
    homeQuotaBytes: QUOTA,
    ...options,
  });
  pools.push(pool);
  return pool;
}

async function shellOf(pool: LocalDesktopPool, id: string) {
  await pool.ensure(id, {}, 'prs_owner');
  const desktop = await pool.get(id);
  if (desktop?.sandbox === undefined) throw new Error('the local desktop did not start sandboxed');
  return { env: desktop.env, homeOnHost: desktop.sandbox.homeDir, pid: desktop.pid };
}

beforeAll(async () => {
  dataDir = await mkdtemp('/var/tmp/oc-quota-test-data-');
});

afterAll(async () => {
  for (const pool of pools) await pool.close();
  await removeDataDir(dataDir);
});

describe('a HOME’s quota as root: its own file system', () => {
  it.skipIf(!isRoot)(
    'refuses the write past the quota inside the desktop; it, another desktop and the data dir go on',
    async () => {
      const pool = newPool({});
      const full = await shellOf(pool, 'dsk_full');
      const other = await shellOf(pool, 'dsk_other');
      // As root on a machine with loop devices (as here and in CI) the HOME is its own file system.
      const mounted = await run('mountpoint', ['-q', full.homeOnHost]).then(
        () => true,
        () => false,
      );
      expect(mounted, 'the HOME is a mounted file system (are loop devices missing?)').toBe(true);
      await typeInDesktop(full, `rm -f ~/report.txt; ${FILL}; rm -f ~/big`);
      const report = await readFile(join(full.homeOnHost, 'report.txt'), 'utf8');
      expect(status(report, 'dd')).not.toBe('0');
      expect(Number(status(report, 'size'))).toBeLessThanOrEqual(QUOTA);
      expect(Number(status(report, 'size'))).toBeGreaterThan(QUOTA / 2);
      // The desktop writes again once it freed room, the other one writes, the bridge's disk too.
      await typeInDesktop(full, 'echo alive > ~/after.txt');
      expect(await readFile(join(full.homeOnHost, 'after.txt'), 'utf8')).toBe('alive\n');
      await typeInDesktop(other, 'echo fine > ~/other.txt');
      expect(await readFile(join(other.homeOnHost, 'other.txt'), 'utf8')).toBe('fine\n');
      await writeFile(join(dataDir, 'bridge-writes.txt'), 'the bridge still writes');
      expect((await pool.get('dsk_full'))?.pid).toBe(full.pid);
      // On the data dir's disk the HOMEs take what they hold (sparse, deletes given back), not
      // their quota each. ext4 gives the deleted blocks back at its next journal commit (every
      // 5 s), not at the rm: one CI run measured the image still full.
      await eventually(
        'the data dir holding less than one quota',
        async () => {
          const { stdout } = await run('du', ['-sB1', dataDir]);
          return Number(stdout.split('\t')[0]) < QUOTA;
        },
        20_000,
      );
      await pool.close();
    },
    120_000,
  );
});

describe('a HOME’s quota where it is measured', () => {
  it('stops the desktop over its quota at the sweep and refuses its start in words; another goes on', async () => {
    const over: Array<{ id: string; used: number }> = [];
    const pool = newPool({
      measureHomes: true,
      onOverQuota: (id, used) => over.push({ id, used }),
    });
    const full = await shellOf(pool, 'dsk_measured_full');
    const other = await shellOf(pool, 'dsk_measured_other');
    await typeInDesktop(full, FILL);
    await pool.stopIdle(Date.now());
    expect(await pool.get('dsk_measured_full')).toBeUndefined();
    expect(over).toHaveLength(1);
    expect(over[0]?.id).toBe('dsk_measured_full');
    expect(over[0]?.used).toBeGreaterThan(QUOTA);
    const refused = await pool.ensure('dsk_measured_full', {}, 'prs_owner').then(
      () => undefined,
      (err: unknown) => err,
    );
    expect(refused).toBeInstanceOf(DesktopReachError);
    expect((refused as Error).message).toMatch(/more than the 16 MiB a desktop may keep/);
    expect((await pool.get('dsk_measured_other'))?.pid).toBe(other.pid);
    await typeInDesktop(other, 'echo fine > ~/other.txt');
    expect(await readFile(join(other.homeOnHost, 'other.txt'), 'utf8')).toBe('fine\n');
    await pool.close();
  }, 120_000);

  it('counts each file as a block, so a loop of empty files stops the desktop too', async () => {
    const over: Array<{ id: string; used: number }> = [];
    const pool = newPool({
      measureHomes: true,
      onOverQuota: (id, used) => over.push({ id, used }),
    });
    const full = await shellOf(pool, 'dsk_many_files');
    const files = QUOTA / MEASURED_BYTES_PER_FILE + 256;
    await typeInDesktop(
      full,
      `mkdir ~/m; for ((i = 0; i < ${String(files)}; i++)); do : > ~/m/$i; done`,
    );
    await pool.stopIdle(Date.now());
    expect(await pool.get('dsk_many_files')).toBeUndefined();
    expect(over.map((event) => event.id)).toEqual(['dsk_many_files']);
    await pool.close();
  }, 120_000);
});
