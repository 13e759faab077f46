// The host-wide record of the uids handed to local desktops. Each data dir keeps its own claims
// (desktopHomes.ts), but uids are the machine's: two bridges with different data dirs on one host
// must never give one uid to two people's desktops (one desktop's user could then read the
// other's HOME and signal its processes). So, when the bridge is root (only then do desktops run
// as uids of their own), every uid is also taken here, in a root-only dir shared by every bridge:
//   /var/lib/overlay-companion/desktop-uids/<uid>/         made with mkdir: one taker, host-wide
//   /var/lib/overlay-companion/desktop-uids/<uid>/holder   the homes dir that took it
//   /var/lib/overlay-companion/desktop-uids/last-uid       the highest taken (where to look next)
// A uid is still never handed out twice: new uids come after last-uid, which only grows. Entries
// are pruned once their desktop is gone, so the record does not grow with every desktop ever
// made: a data dir gives back its own entry when it deletes the desktop (release) and, when its
// bridge starts, each of its entries whose claim folder is gone (a crash between the two steps);
// an entry of a data dir that no longer exists (deleted without its bridge deleting its
// desktops) goes too, unless a process still runs as its uid. Pruning never makes a uid free for
// a new desktop (last-uid); the only taker of a pruned uid is a claim that already had it — its
// own data dir coming back (ensure takes it again), or a claim from before this record existed.
// Another bridge's entry whose data dir exists is never touched.
import { mkdir, readdir, readFile, realpath, rename, rm, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

export const DESKTOP_UID_REGISTRY = '/var/lib/overlay-companion/desktop-uids';

const HOLDER_FILE = 'holder';
const LAST_UID_FILE = 'last-uid';

export class DesktopUidRegistry {
  constructor(readonly dir: string = DESKTOP_UID_REGISTRY) {}

  /**
   * Takes `uid` for the homes dir `holder`: true when it is now (or already was) that holder's,
   * false when another data dir has it.
   */
  async take(uid: number, holder: string): Promise<boolean> {
    const me = await realpath(holder).catch(() => holder);
    await mkdir(this.dir, { recursive: true, mode: 0o700 });
    const entry = join(this.dir, String(uid));
    const made = await mkdir(entry, { mode: 0o700 }).then(
      () => true,
      (err: NodeJS.ErrnoException) => {
        if (err.code === 'EEXIST') return false;
        throw err;
      },
    );
    if (!made) {
      // An entry whose holder is not written yet (its taker is between the two steps, or died
      // there) is someone else's: never shared.
      return (await readFile(join(entry, HOLDER_FILE), 'utf8').catch(() => '')) === me;
    }
    await writeAtomically(join(entry, HOLDER_FILE), me);
    if (uid > (await this.last()))
      await writeAtomically(join(this.dir, LAST_UID_FILE), String(uid));
    return true;
  }

  /** Gives `uid` back when `holder` holds it (its desktop was deleted); anyone else's stays. */
  async release(uid: number, holder: string): Promise<void> {
    const me = await realpath(holder).catch(() => holder);
    const entry = join(this.dir, String(uid));
    if ((await readFile(join(entry, HOLDER_FILE), 'utf8').catch(() => '')) !== me) return;
    await rm(entry, { recursive: true, force: true });
  }

  /**
   * Prunes the entries of desktops that are gone: `holder`'s own whose claim `claimed(uid)` says
   * is gone, and those of a holder that no longer exists that no process runs as. Returns the
   * uids pruned. An entry without a holder (its taker is between the two steps) stays.
   */
  async prune(holder: string, claimed: (uid: number) => Promise<boolean>): Promise<number[]> {
    const me = await realpath(holder).catch(() => holder);
    const names = await readdir(this.dir).catch(() => [] as string[]);
    const busy = await processUids();
    const pruned: number[] = [];
    for (const name of names) {
      if (!/^\d+$/.test(name)) continue;
      const uid = Number(name);
      const entry = join(this.dir, name);
      const taker = await readFile(join(entry, HOLDER_FILE), 'utf8').catch(() => '');
      if (taker === '') continue;
      const gone = taker === me ? !(await claimed(uid)) : !busy.has(uid) && !(await exists(taker));
      if (!gone) continue;
      await rm(entry, { recursive: true, force: true });
      pruned.push(uid);
    }
    return pruned;
  }

  /** The highest uid taken here (0: none yet). */
  async last(): Promise<number> {
    const last = Number(await readFile(join(this.dir, LAST_UID_FILE), 'utf8').catch(() => ''));
    return Number.isSafeInteger(last) ? last : 0;
  }
}

/** The uids (real and effective) every process on the host runs as now. */
export async function processUids(): Promise<Set<number>> {
  const uids = new Set<number>();
  for (const pid of await readdir('/proc')) {
    if (!/^\d+$/.test(pid)) continue;
    const status = await readFile(`/proc/${pid}/status`, 'utf8').catch(() => '');
    const ids = /^Uid:\s+(\d+)\s+(\d+)/m.exec(status);
    if (ids?.[1] !== undefined) uids.add(Number(ids[1]));
    if (ids?.[2] !== undefined) uids.add(Number(ids[2]));
  }
  return uids;
}

export async function writeAtomically(path: string, text: string): Promise<void> {
  const temporary = `${path}.${String(process.pid)}.new`;
  await writeFile(temporary, text, { mode: 0o600 });
  await rename(temporary, path);
}

async function exists(path: string): Promise<boolean> {
  return stat(path).then(
    () => true,
    (err: NodeJS.ErrnoException) => err.code !== 'ENOENT',
  );
}
