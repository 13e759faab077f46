// A desktop HOME's size limit (OC_DESKTOP_HOME_QUOTA). The AI can type any shell line into its
// desktop, so a HOME on the data dir's disk could fill it, and SQLite and the recordings with it.
//
// As root the limit is hard: the HOME is an ext4 file system in an image file of the quota's size
// (`<uid>/home.img`, sparse: it takes on disk only what the desktop wrote), loop-mounted over the
// HOME folder while the desktop runs (nosuid, nodev, discard: deleted files give their blocks back
// to the data dir's disk). bwrap binds the folder, so the sandbox sees the mounted file system and a
// write past the limit fails with "No space left on device" inside the desktop alone.
//
// Where that cannot be done (not root, no loop devices), the pool measures instead (usedBytes): a
// desktop found over its limit is stopped and refused a start, saying why (localDesktopPool.ts).
import { execFile } from 'node:child_process';
import {
  chmod,
  chown,
  mkdir,
  readdir,
  readFile,
  readlink,
  rename,
  rm,
  stat,
} from 'node:fs/promises';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** Bytes one local desktop's HOME may hold, unless OC_DESKTOP_HOME_QUOTA says otherwise. */
export const DEFAULT_DESKTOP_HOME_QUOTA_BYTES = 2 * 1024 * 1024 * 1024;
/** The smallest quota accepted: an ext4 file system with its journal needs a few MiB. */
export const MIN_DESKTOP_HOME_QUOTA_BYTES = 16 * 1024 * 1024;

/** How a HOME's limit is kept: by the file system (hard), or by measuring it (see usedBytes). */
export type HomeLimit = 'image' | 'measured';

/** Whether `dir` is a mount point now. */
export async function isMounted(dir: string): Promise<boolean> {
  return run('mountpoint', ['-q', dir]).then(
    () => true,
    () => false,
  );
}

/**
 * Mounts `image` (made at `bytes`, grown when the quota was raised) over `dir`, owned by `uid`.
 * A HOME that was a plain folder (before quotas) is copied in first; if it does not fit, nothing
 * changes and the error says so (the caller measures instead).
 */
export async function mountImageHome(
  dir: string,
  image: string,
  bytes: number,
  uid: number,
): Promise<void> {
  if (!(await isMounted(dir))) {
    const size = await stat(image).then(
      (s) => s.size,
      () => undefined,
    );
    if (size === undefined) await makeImage(dir, image, bytes, uid);
    else if (size < bytes) await growImage(image, bytes);
    await run('mount', ['-o', 'loop,nosuid,nodev,discard', image, dir]);
  }
  // The file system's root is the HOME: the desktop's user's alone.
  await chown(dir, uid, uid);
  await chmod(dir, 0o700);
}

/**
 * Whether the file system mounted at `dir` is also mounted in another mount namespace: a running
 * desktop's sandbox has its HOME bind-mounted in its own. (The mount says it, whatever runs as
 * the desktop's uid.)
 */
export async function mountedElsewhere(dir: string): Promise<boolean> {
  // mountinfo field 3 is the file system's device (major:minor), field 5 the mount point.
  const fields = (table: string) => table.split('\n').map((line) => line.split(' '));
  const own = await readFile('/proc/self/mountinfo', 'utf8');
  const device = fields(own).find((f) => f[4] === dir)?.[2];
  if (device === undefined) return false;
  const seen = new Set([await readlink('/proc/self/ns/mnt')]);
  for (const pid of await readdir('/proc')) {
    if (!/^\d+$/.test(pid)) continue;
    const namespace = await readlink(`/proc/${pid}/ns/mnt`).catch(() => undefined);
    if (namespace === undefined || seen.has(namespace)) continue;
    seen.add(namespace);
    const table = await readFile(`/proc/${pid}/mountinfo`, 'utf8').catch(() => '');
    if (fields(table).some((f) => f[2] === device)) return true;
  }
  return false;
}

/** Unmounts the HOME (lazily when something still holds it: the desktop's processes are gone). */
export async function unmountHome(dir: string): Promise<void> {
  if (!(await isMounted(dir))) return;
  await run('umount', [dir]).catch(() => run('umount', ['-l', dir]));
}

/** Why a desktop measured over its quota is not started, for the person who opened it. */
export function overQuotaMessage(usedBytes: number, quotaBytes: number): string {
  const mib = (bytes: number): string => `${String(Math.ceil(bytes / (1024 * 1024)))} MiB`;
  return `This desktop's files take ${mib(usedBytes)}, more than the ${mib(quotaBytes)} a desktop may keep, so it was not started. An admin can raise OC_DESKTOP_HOME_QUOTA, or remove the desktop (its files go with it).`;
}

/**
 * What one file costs the measured limit at least: an empty file holds no bytes but takes an inode
 * of the data dir's disk, and ext4's inodes are fixed at mkfs (a loop of `touch` could take them
 * all, and SQLite could then make no file). A block each bounds the files to quota / 4 KiB.
 */
export const MEASURED_BYTES_PER_FILE = 4096;

/**
 * Bytes under `dir`, on its own file system, each file and folder counted as at least
 * MEASURED_BYTES_PER_FILE (what the measured limit counts).
 */
export async function usedBytes(dir: string): Promise<number> {
  const [bytes, inodes] = await Promise.all([
    run('du', ['-sxb', dir]),
    run('du', ['-sx', '--inodes', dir]),
  ]);
  const count = (out: { stdout: string }): number => Number(out.stdout.split('\t')[0]);
  return Math.max(count(bytes), count(inodes) * MEASURED_BYTES_PER_FILE);
}

async function makeImage(dir: string, image: string, bytes: number, uid: number): Promise<void> {
  const fresh = `${image}.new`;
  await rm(fresh, { force: true });
  await run('truncate', ['-s', String(bytes), fresh]);
  await chmod(fresh, 0o600);
  // Lazy init: the file is sparse, so unwritten tables already read as zeros.
  await run('mkfs.ext4', [
    '-q',
    '-F',
    '-m',
    '0',
    '-E',
    `lazy_itable_init=1,lazy_journal_init=1,root_owner=${String(uid)}:${String(uid)}`,
    fresh,
  ]);
  const staging = `${dir}.new`;
  await mkdir(staging, { recursive: true, mode: 0o700 });
  try {
    await run('mount', ['-o', 'loop,nosuid,nodev,noexec', fresh, staging]);
    try {
      await rm(`${staging}/lost+found`, { recursive: true, force: true });
      // Files of a HOME kept before quotas move in (cp fails with ENOSPC when over the limit).
      const existing = await readdir(dir).catch(() => [] as string[]);
      if (existing.length > 0) await run('cp', ['-a', '--', `${dir}/.`, `${staging}/`]);
    } finally {
      await run('umount', [staging]);
    }
  } catch (err) {
    await rm(fresh, { force: true });
    throw err;
  } finally {
    await rm(staging, { recursive: true, force: true });
  }
  await rename(fresh, image);
  // The folder is only the mount point now: what was in it lives in the image.
  await rm(dir, { recursive: true, force: true });
  await mkdir(dir, { mode: 0o700 });
}

async function growImage(image: string, bytes: number): Promise<void> {
  // Exit 1 is "errors corrected": always so here, since makeImage removes lost+found and e2fsck
  // makes it again. Taken as a failure, it left every HOME unstartable once the quota was raised.
  await run('e2fsck', ['-f', '-p', image]).catch((err: unknown) => {
    if ((err as { code?: unknown }).code !== 1) throw err;
  });
  await run('truncate', ['-s', String(bytes), image]);
  await run('resize2fs', [image]);
}
