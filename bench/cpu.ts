// CPU time spent by the processes of the stack while a benchmark loop runs, read from
// /proc/<pid>/stat (utime + stime, in clock ticks). Dividing by the number of calls gives the
// CPU each call really needs per process; the rest of a round trip is waiting — for a core on a
// shared 2-core machine, or for a timer. Linux only (the bench's machines). Processes come and
// go during a loop (Chromium starts and ends renderers), so groups are compared process by
// process: a new process counts in full, and one that ended counts through its parent's reaped-
// children time (cutime + cstime) when the parent is in the group.
import { readFileSync, readdirSync } from 'node:fs';

/** Clock ticks per second; 100 on every Linux we run on (getconf CLK_TCK). */
const TICKS_PER_S = 100;

interface ProcStat {
  pid: number;
  comm: string;
  ppid: number;
  cpuMs: number;
  /** CPU of children this process has reaped (cutime + cstime). */
  reapedMs: number;
}

function readStat(pid: number): ProcStat | undefined {
  try {
    const text = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // comm may contain spaces and parentheses: split after the last ')'.
    const close = text.lastIndexOf(')');
    const comm = text.slice(text.indexOf('(') + 1, close);
    const fields = text.slice(close + 2).split(' ');
    // fields[0] is state (field 3); utime/stime are fields 14/15.
    const ms = (ticks: number) => (ticks * 1000) / TICKS_PER_S;
    return {
      pid,
      comm,
      ppid: Number(fields[1]),
      cpuMs: ms(Number(fields[11]) + Number(fields[12])),
      reapedMs: ms(Number(fields[13]) + Number(fields[14])),
    };
  } catch {
    return undefined; // gone
  }
}

/** CPU milliseconds `pid` has used so far (NaN when it is gone). */
export function processCpuMs(pid: number): number {
  return readStat(pid)?.cpuMs ?? Number.NaN;
}

function allStats(): ProcStat[] {
  return readdirSync('/proc')
    .filter((name) => /^\d+$/.test(name))
    .map((name) => readStat(Number(name)))
    .filter((s): s is ProcStat => s !== undefined);
}

/** Every descendant of `root` (children, grandchildren, …), from one /proc scan. */
function descendants(root: number, stats: ProcStat[]): ProcStat[] {
  const byParent = new Map<number, ProcStat[]>();
  for (const s of stats) byParent.set(s.ppid, [...(byParent.get(s.ppid) ?? []), s]);
  const out: ProcStat[] = [];
  const queue = [root];
  while (queue.length > 0) {
    for (const child of byParent.get(queue.shift()!) ?? []) {
      out.push(child);
      queue.push(child.pid);
    }
  }
  return out;
}

export interface CpuGroups {
  /** The bridge's node process itself. */
  bridge: number;
  /** Xvnc, openbox and the xterm the bridge started. */
  desktop: number;
  /** The headless Chromium that runs the viewer page (all its processes). */
  viewer_chromium: number;
  /** This process: the MCP clients of the bench. */
  bench_client: number;
}

/** Wall time per call of the measured loop, pacing included. */
export type CpuPerCall = CpuGroups & { wall: number };

type Group = Map<number, ProcStat>;

interface Snapshot {
  bridge: Group;
  desktop: Group;
  viewer_chromium: Group;
  /** This process, from process.cpuUsage() (finer than ticks). */
  benchMs: number;
}

const byPid = (list: ProcStat[]): Group => new Map(list.map((s) => [s.pid, s]));

function snapshot(bridgePid: number): Snapshot {
  const stats = allStats();
  const bridge = stats.filter((s) => s.pid === bridgePid);
  const desktop = descendants(bridgePid, stats);
  const desktopPids = new Set(desktop.map((s) => s.pid));
  const chromium = descendants(process.pid, stats).filter(
    (s) => /^chrom/.test(s.comm) && !desktopPids.has(s.pid),
  );
  const own = process.cpuUsage();
  return {
    bridge: byPid(bridge),
    desktop: byPid(desktop),
    viewer_chromium: byPid(chromium),
    benchMs: (own.user + own.system) / 1000,
  };
}

/** CPU a group used between two snapshots, process by process (see the header). */
function used(before: Group, after: Group): number {
  let total = 0;
  for (const [pid, now] of after) {
    const then = before.get(pid);
    total += now.cpuMs - (then?.cpuMs ?? 0);
    if (then !== undefined) total += now.reapedMs - then.reapedMs;
  }
  return total;
}

/**
 * Runs `loop`, which returns how many calls it made, and returns the CPU milliseconds per call
 * of each group. Tick resolution is 10 ms, so use a few hundred calls.
 */
export async function cpuPerCall(
  bridgePid: number,
  loop: () => Promise<number>,
): Promise<CpuPerCall> {
  const before = snapshot(bridgePid);
  const start = performance.now();
  const calls = Math.max(1, await loop());
  const wall = performance.now() - start;
  const after = snapshot(bridgePid);
  const per = (ms: number) => Math.round((ms / calls) * 1000) / 1000;
  const group = (key: 'bridge' | 'desktop' | 'viewer_chromium') =>
    per(used(before[key], after[key]));
  return {
    bridge: after.bridge.size === 0 ? Number.NaN : group('bridge'),
    desktop: group('desktop'),
    viewer_chromium: group('viewer_chromium'),
    bench_client: per(after.benchMs - before.benchMs),
    wall: Math.round((wall / calls) * 1000) / 1000,
  };
}
