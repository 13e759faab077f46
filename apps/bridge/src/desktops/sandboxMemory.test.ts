// What a local desktop's AI can write outside its HOME, for real (bubblewrap, Xvnc, a shell line
// typed into the desktop's xterm as its AI would): /tmp and /dev/shm are memory with a size, so
// `dd if=/dev/zero of=/tmp/x` stops at it with ENOSPC ("No space left on device") instead of
// filling the machine's memory; /, /run, /home and /dev take nothing; the desktop, another one
// and the bridge go on.
import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { SANDBOX_SHM_BYTES, SANDBOX_TMP_BYTES } from '@overlay-companion/gateway';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { typeInDesktop } from '../files/testing/desktopShell.js';
import { silentLogger } from '../logger.js';
import { LocalDesktopPool } from './localDesktopPool.js';
import { removeDataDir } from '../testing/dataDirs.js';

const MiB = 1024 * 1024;

/** Typed into the desktop: writes `mib` MiB to `file`, reports dd's status, its error and the bytes kept. */
const fill = (file: string, mib: number, name: string) =>
  `dd if=/dev/zero of=${file} bs=1M count=${String(mib)} 2>~/${name}.err; echo dd=$? size=$(stat -c %s ${file} 2>/dev/null || echo 0) > ~/${name}.txt; rm -f ${file}`;

/** Typed into the desktop: tries to create a file in each of `dirs`, reports the ones it could. */
const probeWrites = (dirs: string[]) =>
  `for d in ${dirs.join(' ')}; do (echo x > $d/oc-probe) 2>/dev/null && echo $d; done > ~/writable.txt`;

const field = (report: string, name: string): string | undefined =>
  new RegExp(`${name}=(\\S*)`).exec(report)?.[1];

let dataDir: string;
let pool: LocalDesktopPool;

beforeAll(async () => {
  dataDir = await mkdtemp('/var/tmp/oc-sandbox-memory-test-');
  pool = new LocalDesktopPool({
    logger: silentLogger(),
    allowSocket: () => () => undefined,
    inUse: () => true,
    dataDir,
  });
});

afterAll(async () => {
  await pool.close();
  await removeDataDir(dataDir);
});

async function shellOf(id: string) {
  await pool.ensure(id, {}, 'prs_owner');
  const desktop = await pool.get(id);
  if (desktop?.sandbox === undefined) throw new Error('the local desktop did not start sandboxed');
  return { env: desktop.env, homeOnHost: desktop.sandbox.homeDir, pid: desktop.pid };
}

it('stops a write past /tmp’s and /dev/shm’s size with ENOSPC; nothing else outside HOME takes a byte; the desktops and the bridge go on', async () => {
  const full = await shellOf('dsk_tmp_full');
  const other = await shellOf('dsk_tmp_other');
  const limits = { tmp: SANDBOX_TMP_BYTES, shm: SANDBOX_SHM_BYTES };
  await typeInDesktop(full, fill('/tmp/big', SANDBOX_TMP_BYTES / MiB + 32, 'tmp'));
  await typeInDesktop(full, fill('/dev/shm/big', SANDBOX_SHM_BYTES / MiB + 32, 'shm'));
  for (const [name, limit] of Object.entries(limits)) {
    const report = await readFile(join(full.homeOnHost, `${name}.txt`), 'utf8');
    const error = await readFile(join(full.homeOnHost, `${name}.err`), 'utf8');
    expect(field(report, 'dd'), `${name}: ${report} ${error}`).not.toBe('0');
    expect(error).toMatch(/No space left on device/);
    expect(Number(field(report, 'size'))).toBeLessThanOrEqual(limit);
    expect(Number(field(report, 'size'))).toBeGreaterThan(limit / 2);
  }
  // bwrap's own mounts (/, and /dev with /run and /home in them) are read-only: a bridge not run
  // as root gives them to the desktop's user, who could fill memory there instead.
  await typeInDesktop(
    full,
    probeWrites(['/', '/run', '/run/desktop', '/home', '/dev', '/tmp', '/dev/shm']),
  );
  expect((await readFile(join(full.homeOnHost, 'writable.txt'), 'utf8')).split('\n')).toEqual([
    '/tmp',
    '/dev/shm',
    '',
  ]);
  // The desktop writes again once it freed /tmp, the other one writes, the bridge's disk too.
  await typeInDesktop(
    full,
    'dd if=/dev/zero of=/tmp/again bs=1M count=8 && echo alive > ~/after.txt',
  );
  expect(await readFile(join(full.homeOnHost, 'after.txt'), 'utf8')).toBe('alive\n');
  await typeInDesktop(other, 'echo fine > /tmp/t && cp /tmp/t ~/other.txt');
  expect(await readFile(join(other.homeOnHost, 'other.txt'), 'utf8')).toBe('fine\n');
  await writeFile(join(dataDir, 'bridge-writes.txt'), 'the bridge still writes');
  expect((await pool.get('dsk_tmp_full'))?.pid).toBe(full.pid);
  expect((await pool.get('dsk_tmp_other'))?.pid).toBe(other.pid);
}, 180_000);
