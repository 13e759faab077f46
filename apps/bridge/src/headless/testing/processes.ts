// Test support: finding the Chromium a test started, through /proc (Linux). playwright-core
// does not expose the browser's pid, and the crash tests need it to SIGKILL exactly that
// browser — a direct child of the process that launched it — and to check it is gone after.
import { readFileSync, readdirSync } from 'node:fs';

function parentOf(pid: number): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Field 4 is the ppid; the command name (field 2) may contain spaces, so skip past ')'.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return Number(fields[1]);
  } catch {
    return undefined;
  }
}

function commandLine(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').replaceAll('\0', ' ');
  } catch {
    return '';
  }
}

/** Pids of the Chromium browser processes whose parent is `parent`. */
export function chromiumChildren(parent: number = process.pid): number[] {
  return readdirSync('/proc')
    .filter((name) => /^\d+$/.test(name))
    .map(Number)
    .filter(
      (pid) => parentOf(pid) === parent && /chrom/i.test(commandLine(pid).split(' ')[0] ?? ''),
    );
}

export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    // A zombie still answers signal 0; it counts as gone.
    return !readFileSync(`/proc/${pid}/stat`, 'utf8').includes(') Z ');
  } catch {
    return false;
  }
}
