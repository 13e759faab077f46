// CPU time of one process tree (a server and every process it forked), from /proc: user +
// system time of each live process — all of its threads, so our gateway's worker threads and
// sharp's encoder threads count — plus what each has already reaped from children that ended.
// Linux only, like the rest of the bench; clock ticks are 10 ms, so measure over seconds.
import { readFileSync, readdirSync } from 'node:fs';

/** Clock ticks per second (getconf CLK_TCK), 100 on every Linux the bench runs on. */
const TICKS_PER_S = 100;

interface Stat {
  pid: number;
  ppid: number;
  /** utime + stime + cutime + cstime, milliseconds. */
  totalMs: number;
}

function readStat(pid: number): Stat | undefined {
  try {
    const text = readFileSync(`/proc/${String(pid)}/stat`, 'utf8');
    // comm may hold spaces and parentheses: the fields start after the last ')'.
    const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
    const ticks = [11, 12, 13, 14].reduce((sum, i) => sum + Number(fields[i]), 0);
    return { pid, ppid: Number(fields[1]), totalMs: (ticks * 1000) / TICKS_PER_S };
  } catch {
    return undefined; // gone meanwhile
  }
}

/** CPU milliseconds used so far by `root` and its descendants (0 when it is gone). */
export function treeCpuMs(root: number): number {
  const stats = readdirSync('/proc')
    .filter((name) => /^\d+$/.test(name))
    .map((name) => readStat(Number(name)))
    .filter((s): s is Stat => s !== undefined);
  const children = new Map<number, Stat[]>();
  for (const s of stats) children.set(s.ppid, [...(children.get(s.ppid) ?? []), s]);
  let total = stats.find((s) => s.pid === root)?.totalMs ?? 0;
  const queue = [root];
  while (queue.length > 0) {
    for (const child of children.get(queue.shift() ?? -1) ?? []) {
      total += child.totalMs;
      queue.push(child.pid);
    }
  }
  return total;
}
