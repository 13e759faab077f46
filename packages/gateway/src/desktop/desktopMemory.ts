// A local desktop's memory: the AI inside can type any program into its xterm, and a program
// that allocates without end would otherwise grow until the kernel's OOM killer picks a victim —
// possibly the bridge. Two defences, applied to every process of the sandbox (bwrap's tree)
// before anything but Xvnc runs in it (lockSandbox), and inherited by all it starts later:
// - oom_score_adj 1000: the desktop's processes are the OOM killer's first choice, before the
//   bridge (0) or anything else on the machine. Written by the bridge as root it also sets the
//   floor (the kernel's oom_score_adj_min), so the desktop's user, without CAP_SYS_RESOURCE,
//   cannot lower it again; without root it is raised all the same (raising needs no privilege)
//   but a program inside could lower it back to the bridge's value.
// - A memory cgroup of its own with a limit (SANDBOX_MEMORY_BYTES), as root, where the kernel
//   lets the bridge make one under its own cgroup: cgroup v1's memory controller
//   (memory.limit_in_bytes), or cgroup v2 when the bridge's cgroup delegates `memory` to its
//   children (memory.max). Past the limit the kernel reclaims and then kills inside that cgroup
//   only: the desktop's biggest program goes, the bridge and other desktops are not touched. Its
//   /tmp and /dev/shm are memory too and count against it.
// Each desktop's cgroup is `oc-desktop-<bwrap pid>` beside the bridge's processes; empty ones
// left by desktops that ended are removed when the next one is made.
import { mkdir, readdir, readFile, rmdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

/** The memory a local desktop's programs may use together (RAM, its /tmp and /dev/shm included). */
export const SANDBOX_MEMORY_BYTES = 2 * 1024 * 1024 * 1024;
/** The highest: the OOM killer's first choice. */
export const SANDBOX_OOM_SCORE_ADJ = 1000;

const CGROUP_PREFIX = 'oc-desktop-';
const CGROUP_ROOT = '/sys/fs/cgroup';

export interface DesktopMemory {
  /** The cgroup that caps the desktop's memory (host path), or why there is none. */
  cap: { cgroup: string; bytes: number } | { why: string };
}

/**
 * Raises every process of the sandbox (`rootPid`'s tree) to SANDBOX_OOM_SCORE_ADJ and, when
 * `cap` (the bridge is root), moves them into a memory cgroup of their own limited to `bytes`.
 */
export async function confineDesktopMemory(
  rootPid: number,
  options: { cap: boolean; bytes?: number },
): Promise<DesktopMemory> {
  const bytes = options.bytes ?? SANDBOX_MEMORY_BYTES;
  const cgroup = options.cap
    ? await desktopCgroup(`${CGROUP_PREFIX}${String(rootPid)}`, bytes).catch((err: unknown) => ({
        why: err instanceof Error ? err.message : String(err),
      }))
    : { why: 'the bridge does not run as root' };
  // Each process before its children: one forked meanwhile inherits both from its parent, and
  // one forked before is among the children read afterwards.
  await eachProcess(rootPid, async (pid) => {
    await writeFile(`/proc/${String(pid)}/oom_score_adj`, String(SANDBOX_OOM_SCORE_ADJ)).catch(
      () => undefined, // ended meanwhile
    );
    if ('dir' in cgroup)
      await writeFile(join(cgroup.dir, 'cgroup.procs'), String(pid)).catch(() => undefined);
  });
  return { cap: 'dir' in cgroup ? { cgroup: cgroup.dir, bytes } : cgroup };
}

/** Visits `pid`, then (read after the visit) each of its children's trees. */
async function eachProcess(pid: number, visit: (pid: number) => Promise<void>): Promise<void> {
  await visit(pid);
  const tasks = await readdir(`/proc/${String(pid)}/task`).catch(() => [] as string[]);
  for (const task of tasks) {
    const children = await readFile(`/proc/${String(pid)}/task/${task}/children`, 'utf8').catch(
      () => '',
    );
    for (const child of children.split(' ').filter((c) => /^\d+$/.test(c)))
      await eachProcess(Number(child), visit);
  }
}

/**
 * A fresh cgroup `name` under the bridge's own, its memory limited to `bytes`: cgroup v1's
 * memory hierarchy, or v2 where `memory` can be given to the bridge's children. Throws why not.
 */
async function desktopCgroup(name: string, bytes: number): Promise<{ dir: string }> {
  const lines = (await readFile('/proc/self/cgroup', 'utf8')).split('\n');
  const v1 = lines.map((l) => l.split(':')).find(([, controllers]) => hasMemory(controllers));
  let parent: string;
  let limits: Array<[file: string, required: boolean]>;
  if (v1?.[2] !== undefined) {
    parent = join(CGROUP_ROOT, 'memory', v1[2]);
    // memsw (memory and swap together) exists only with swap accounting; without it no swap.
    limits = [
      ['memory.limit_in_bytes', true],
      ['memory.memsw.limit_in_bytes', false],
    ];
  } else {
    const v2 = lines.find((l) => l.startsWith('0::'))?.slice(3);
    if (v2 === undefined) throw new Error('the bridge is in no memory cgroup');
    parent = join(CGROUP_ROOT, v2);
    const delegated = await readFile(join(parent, 'cgroup.subtree_control'), 'utf8').catch(
      () => '',
    );
    if (!delegated.split(/\s+/).includes('memory')) {
      // Fails (EBUSY) while the bridge's own cgroup holds processes: v2 lets only a cgroup
      // without processes give controllers to its children.
      await writeFile(join(parent, 'cgroup.subtree_control'), '+memory').catch(() => {
        throw new Error(
          `cgroup v2: the bridge's cgroup (${parent}) does not give the memory controller to its children; run the bridge in a cgroup of its own with memory delegated (systemd: Delegate=memory)`,
        );
      });
    }
    limits = [
      ['memory.max', true],
      ['memory.swap.max', false],
    ];
  }
  await removeEmptyLeftovers(parent);
  const dir = join(parent, name);
  await mkdir(dir).catch((err: NodeJS.ErrnoException) => {
    if (err.code !== 'EEXIST') throw err;
  });
  for (const [file, required] of limits) {
    await writeFile(join(dir, file), String(bytes)).catch((err: unknown) => {
      if (required) throw err;
    });
  }
  return { dir };
}

function hasMemory(controllers: string | undefined): boolean {
  return controllers?.split(',').includes('memory') === true;
}

/** Desktop cgroups whose processes all ended (rmdir fails on one that still has some). */
async function removeEmptyLeftovers(parent: string): Promise<void> {
  for (const name of await readdir(parent).catch(() => [] as string[]))
    if (name.startsWith(CGROUP_PREFIX)) await rmdir(join(parent, name)).catch(() => undefined);
}
