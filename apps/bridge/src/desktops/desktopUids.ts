// The host-wide record of the uids handed to local desktops. Each data dir keeps its own claims
// (desktopHomes.ts), but uids are the machine's: two bridges with different data dirs on one host
// must never give one uid to two people's desktops (one desktop's user could then read the
// other's HOME and signal its processes). So, when the bridge is root (only then do desktops run
// as uids of their own), every uid is also taken here, in a root-only dir shared by every bridge:
//   /var/lib/overlay-companion/desktop-uids/<uid>/         made with mkdir: one taker, host-wide
//   /var/lib/overlay-companion/desktop-uids/<uid>/holder   the homes dir that took it
//   /var/lib/overlay-companion/desktop-uids/last-uid       the highest taken (where to look next)
// Entries are never removed: like a data dir's own, a uid is never handed out twice.
import { mkdir, readdir, readFile, realpath, rename, writeFile } from 'node:fs/promises';
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
