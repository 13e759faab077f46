// Test support: removing a data dir where local desktops ran. As root each desktop's HOME is a
// file system mounted under <data-dir>/desktop-homes while it runs, and a bridge that was killed
// (or a test that failed half-way) leaves it mounted: `rm -rf` would then fail with EBUSY, or
// worse, delete the files inside the mounted HOME and leave the mount. Every test, e2e and bench
// teardown that removes such a dir goes through removeDataDir.
import { execFile } from 'node:child_process';
import { readFile, realpath, rm } from 'node:fs/promises';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** Mount points at or under `dir` (deepest first), from this process's mount table. */
export async function mountsUnder(dir: string): Promise<string[]> {
  const real = await realpath(dir).catch(() => undefined);
  if (real === undefined) return [];
  const table = await readFile('/proc/self/mountinfo', 'utf8');
  const points = table
    .split('\n')
    // Field 5 is the mount point, with space, tab, newline and backslash written as octal.
    .map((line) => line.split(' ')[4])
    .filter((point): point is string => point !== undefined)
    .map((point) =>
      point.replace(/\\([0-7]{3})/g, (_, octal: string) => String.fromCharCode(parseInt(octal, 8))),
    )
    .filter((point) => point === real || point.startsWith(`${real}/`));
  return [...new Set(points)].sort((a, b) => b.length - a.length);
}

/** Unmounts whatever is mounted under `dir` (lazily if still busy), then deletes it. */
export async function removeDataDir(dir: string): Promise<void> {
  for (const point of await mountsUnder(dir))
    await run('umount', [point]).catch(() => run('umount', ['-l', point]));
  await rm(dir, { recursive: true, force: true });
}
