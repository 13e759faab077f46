// What a local desktop's AI can write outside its HOME, for real (bubblewrap, Xvnc, a shell line
// typed into the desktop's xterm as its AI would): /tmp and /dev/shm are memory with a size, so
// `dd if=/dev/zero of=/tmp/x` stops at it with ENOSPC ("No space left on device") instead of
// filling the machine's memory; /, /run, /home and /dev take nothing; the desktop, another one
// and the bridge go on. And the desktop's memory as a whole (desktopMemory.ts in the gateway):
// its programs are the OOM killer's first choice (oom_score_adj 1000, which they cannot lower
// when the bridge is root) and, where this machine offers a memory cgroup to a root bridge, a
// program that allocates past SANDBOX_MEMORY_BYTES is killed inside the desktop alone.
import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import {
  SANDBOX_MEMORY_BYTES,
  SANDBOX_OOM_SCORE_ADJ,
  SANDBOX_SHM_BYTES,
  SANDBOX_TMP_BYTES,
} from '@overlay-companion/gateway';
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
  return {
    env: desktop.env,
    homeOnHost: desktop.sandbox.homeDir,
    pid: desktop.pid,
    bwrapPid: desktop.sandbox.bwrapPid,
  };
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

const isRoot = process.getuid?.() === 0;

/** Whether this process has CAP_SYS_RESOURCE (bit 24 of its effective capabilities). */
async function mayRaiseLimits(): Promise<boolean> {
  const status = await readFile('/proc/self/status', 'utf8');
  const effective = BigInt(`0x${/^CapEff:\s*([0-9a-f]+)/m.exec(status)?.[1] ?? '0'}`);
  return (effective & (1n << 24n)) !== 0n;
}

/** Whether this machine gives a root bridge a cgroup v1 memory hierarchy (as this one does). */
async function memoryHierarchy(): Promise<boolean> {
  const lines = (await readFile('/proc/self/cgroup', 'utf8')).split('\n');
  return lines.some((line) => line.split(':')[1]?.split(',').includes('memory') === true);
}

it('makes the desktop’s programs the OOM killer’s first choice and caps their memory together', async () => {
  const desktop = await shellOf('dsk_memory');
  // Typed into the xterm: its shell's oom_score_adj, and whether it can lower it.
  await typeInDesktop(
    desktop,
    'cat /proc/self/oom_score_adj > ~/oom.txt; (echo 0 > /proc/self/oom_score_adj) 2>/dev/null; echo lowered=$? >> ~/oom.txt; cat /proc/self/oom_score_adj >> ~/oom.txt',
  );
  const [before, lowered, after] = (await readFile(join(desktop.homeOnHost, 'oom.txt'), 'utf8'))
    .trim()
    .split('\n');
  expect(before).toBe(String(SANDBOX_OOM_SCORE_ADJ));
  // A bridge with CAP_SYS_RESOURCE (root, usually) set the floor too: the desktop's user cannot
  // lower it. (This machine's root lacks it: there the desktop could go back to 0, never below.)
  if (await mayRaiseLimits()) {
    expect(lowered).toBe('lowered=1');
    expect(after).toBe(String(SANDBOX_OOM_SCORE_ADJ));
  }
  expect(await readFile(`/proc/${String(desktop.pid)}/oom_score_adj`, 'utf8')).toBe(
    `${String(SANDBOX_OOM_SCORE_ADJ)}\n`,
  );
  expect(await readFile('/proc/self/oom_score_adj', 'utf8')).toBe('0\n');
  if (!isRoot || !(await memoryHierarchy())) return;

  // Xvnc is in the desktop's own memory cgroup, limited to SANDBOX_MEMORY_BYTES.
  const cgroups = await readFile(`/proc/${String(desktop.pid)}/cgroup`, 'utf8');
  const path = /^\d+:[^:]*\bmemory\b[^:]*:(.*)$/m.exec(cgroups)?.[1] ?? '';
  expect(path).toMatch(new RegExp(`/oc-desktop-${String(desktop.bwrapPid)}$`));
  const limit = await readFile(
    join('/sys/fs/cgroup/memory', path, 'memory.limit_in_bytes'),
    'utf8',
  );
  expect(Number(limit)).toBe(SANDBOX_MEMORY_BYTES);
  // A program that holds more than that (tail keeps a line without end) is killed (SIGKILL: 137);
  // the desktop, its shell and the bridge go on.
  const mib = SANDBOX_MEMORY_BYTES / MiB + 512;
  await typeInDesktop(
    desktop,
    `head -c ${String(mib)}M /dev/zero | tail > /dev/null; echo tail=\${PIPESTATUS[1]} > ~/alloc.txt`,
  );
  expect(await readFile(join(desktop.homeOnHost, 'alloc.txt'), 'utf8')).toBe('tail=137\n');
  await typeInDesktop(desktop, 'echo alive > ~/alive.txt');
  expect(await readFile(join(desktop.homeOnHost, 'alive.txt'), 'utf8')).toBe('alive\n');
  expect((await pool.get('dsk_memory'))?.pid).toBe(desktop.pid);
}, 180_000);
