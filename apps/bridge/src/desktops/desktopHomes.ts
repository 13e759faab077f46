// Where a local desktop record keeps its person's files, and which OS user it runs as, when the
// pool has a homes dir (serve: `<data-dir>/desktop-homes`, 0700, the bridge's). Each desktop
// record gets its own unprivileged uid (gid the same number) from DESKTOP_UID_FIRST on, and a
// HOME that outlives idle stops and bridge restarts and is deleted with the record (remove).
//
// Kept on disk, not in the database: uids and folders are this machine's, and the folder is the
// record of its own allocation. Layout:
//   desktop-homes/last-uid        the last uid handed out (never handed out again, see allocate)
//   desktop-homes/<uid>/          0700 the bridge's; made with mkdir, so two desktops can never
//                                 hold the same uid (mkdir fails for the second)
//   desktop-homes/<uid>/desktop   the desktop record's id (0600): the only place it is written
//   desktop-homes/<uid>/owner     the id of the person who owned the record when it was claimed
//   desktop-homes/<uid>/home/     the HOME: 0700, owned by the uid (when the bridge is root)
//   desktop-homes/<uid>/home.img  as root: the HOME's size-limited file system (homeQuota.ts)
// The folder names are numbers: they tell nobody which person or desktop they belong to.
//
// As root, a uid is also taken host-wide (desktopUids.ts), so another bridge's data dir on this
// machine never hands out the same one. A claim made before that record existed whose uid another
// data dir took first moves to a fresh uid at its next start (folder renamed, files chowned).
// A claim without an owner (made before owners were written) is nobody's known HOME: it is
// deleted like another owner's, never given to whoever owns the desktop now.
//
// The homes dir is 0700 and the bridge's, so nobody else can even reach a HOME; bwrap, run by
// the bridge (root), bind-mounts it before setpriv drops to the desktop's uid (sandbox.ts). When
// the bridge is not root, HOMEs are the bridge's own and `user` is undefined (the sandbox then
// runs as the bridge's user in a user namespace).
import { execFile } from 'node:child_process';
import { chmod, chown, mkdir, readdir, readFile, rename, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { DesktopUidRegistry, processUids, writeAtomically } from './desktopUids.js';
import {
  isMounted,
  mountedElsewhere,
  mountImageHome,
  unmountHome,
  type HomeLimit,
} from './homeQuota.js';

const run = promisify(execFile);

/**
 * Desktop uids: in systemd's unused range 1879048192–2147483647 (below 2^31, so every tool reads
 * them as positive), clear of login users, dynamic service users and nspawn containers.
 */
export const DESKTOP_UID_FIRST = 1_900_000_000;
export const DESKTOP_UID_LAST = 2_000_000_000;

/** The homes dir, in the data dir. */
export const DESKTOP_HOMES_DIR = 'desktop-homes';

const LAST_UID_FILE = 'last-uid';
const OWNER_FILE = 'desktop';
const PERSON_FILE = 'owner';
const HOME_DIR = 'home';
const IMAGE_FILE = 'home.img';

export interface DesktopHome {
  /** Host path of the HOME (mounted as the sandbox's /home/desktop). */
  dir: string;
  /** The uid/gid the desktop runs as; undefined when the bridge is not root. */
  user: { uid: number; gid: number } | undefined;
  /** How its size limit is kept; `measured` comes with why the hard limit could not be had. */
  limit: { kind: 'image' } | { kind: Extract<HomeLimit, 'measured'>; why: string };
  /**
   * True when a HOME made for someone else (or for nobody known: a claim from before owners were
   * written) was deleted to make this one.
   */
  replacedEarlierOwners: boolean;
}

interface Claim {
  uid: number;
  /** Absent for claims made before owners were written (adopted by the next ensure). */
  ownerId: string | undefined;
}

export class DesktopHomes {
  /** One change at a time: two askers for one desktop must get one uid, not two. */
  private queue: Promise<unknown> = Promise.resolve();

  private readonly uids: DesktopUidRegistry;

  /**
   * `measureOnly`: no file system per HOME even as root (the pool then measures them). `uids`:
   * the host-wide uid record (default DESKTOP_UID_REGISTRY; used only as root).
   */
  constructor(
    readonly root: string,
    private readonly options: { measureOnly?: boolean; uids?: DesktopUidRegistry } = {},
  ) {
    this.uids = options.uids ?? new DesktopUidRegistry();
    // First in the queue: what a killed bridge left mounted goes before anything is started,
    // then the host-wide uid record's entries of desktops that are gone (desktopUids.ts).
    this.queue = this.unmountStale()
      .then(() => this.pruneUids())
      .catch(() => undefined);
  }

  /**
   * The desktop's HOME and user for `ownerId`, made on first use (and owned by the user again each
   * time). A HOME claimed under another owner is deleted first, and a new uid handed out. As root,
   * the HOME is mounted with its size limit (`quotaBytes`) until release().
   */
  ensure(desktopId: string, ownerId: string, quotaBytes: number): Promise<DesktopHome> {
    return this.serial(async () => {
      await mkdir(this.root, { recursive: true, mode: 0o700 });
      await chmod(this.root, 0o700);
      let claim = (await this.claims()).get(desktopId);
      // Owner-less (from before owners were written): whose it is cannot be known, so not theirs.
      const replacedEarlierOwners = claim !== undefined && claim.ownerId !== ownerId;
      if (replacedEarlierOwners && claim !== undefined) {
        await this.deleteClaim(claim.uid);
        claim = undefined;
      }
      let uid = claim?.uid ?? (await this.allocate(desktopId, ownerId));
      // Taken host-wide before this record existed by another data dir: a fresh uid.
      let movedFrom: number | undefined;
      if (claim !== undefined && isRoot() && !(await this.uids.take(claim.uid, this.root))) {
        movedFrom = claim.uid;
        uid = await this.freshUid();
        await rename(join(this.root, String(movedFrom)), join(this.root, String(uid)));
      }
      const dir = join(this.root, String(uid), HOME_DIR);
      await mkdir(dir, { recursive: true, mode: 0o700 });
      await chmod(dir, 0o700);
      if (!isRoot()) {
        const why = 'the bridge does not run as root';
        return { dir, user: undefined, limit: { kind: 'measured', why }, replacedEarlierOwners };
      }
      await chown(dir, uid, uid);
      const user = { uid, gid: uid };
      const limit = await this.limit(uid, dir, quotaBytes);
      if (movedFrom !== undefined) {
        const [from, to] = [String(movedFrom), String(uid)];
        await run('chown', ['-R', `--from=${from}:${from}`, `${to}:${to}`, '--', dir]);
      }
      return { dir, user, limit, replacedEarlierOwners };
    });
  }

  /** As root: the HOME's file system mounted with its limit, or why it is measured instead. */
  private async limit(uid: number, dir: string, quotaBytes: number): Promise<DesktopHome['limit']> {
    if (this.options.measureOnly === true)
      return { kind: 'measured', why: 'measuring was asked for' };
    const image = join(this.root, String(uid), IMAGE_FILE);
    return mountImageHome(dir, image, quotaBytes, uid).then(
      () => ({ kind: 'image' as const }),
      async (err: unknown) => {
        const why = err instanceof Error ? (err.message.split('\n')[0] ?? '') : String(err);
        // Its files are in the image: never start it on the empty folder under it instead.
        if (
          await stat(image).then(
            () => true,
            () => false,
          )
        )
          throw new Error(`The desktop's home (${image}) could not be mounted: ${why}`);
        return { kind: 'measured' as const, why };
      },
    );
  }

  /** The desktop stopped: its HOME's file system is unmounted (its files stay in the image). */
  release(desktopId: string): Promise<void> {
    return this.serial(async () => {
      const claim = (await this.claims()).get(desktopId);
      if (claim !== undefined) await unmountHome(join(this.root, String(claim.uid), HOME_DIR));
    });
  }

  /** Deletes the desktop's HOME and frees its folder; false when it had none. */
  remove(desktopId: string): Promise<boolean> {
    return this.serial(async () => {
      const claim = (await this.claims()).get(desktopId);
      if (claim === undefined) return false;
      await this.deleteClaim(claim.uid);
      return true;
    });
  }

  /**
   * Deletes the desktop's HOME when it was made for someone other than `ownerId`, or for nobody
   * known (checked and deleted in one step, after any ensure already asked for); true when it did.
   */
  removeIfNotOwnedBy(desktopId: string, ownerId: string): Promise<boolean> {
    return this.serial(async () => {
      const claim = (await this.claims()).get(desktopId);
      if (claim === undefined || claim.ownerId === ownerId) return false;
      await this.deleteClaim(claim.uid);
      return true;
    });
  }

  /** The desktop ids that have a HOME here. */
  async owners(): Promise<string[]> {
    return [...(await this.claims()).keys()];
  }

  private serial<T>(work: () => Promise<T>): Promise<T> {
    const next = this.queue.then(work, work);
    this.queue = next.catch(() => undefined);
    return next;
  }

  /**
   * A bridge killed without stopping (SIGKILL, a crash, power) leaves the HOMEs of its running
   * desktops mounted: their sandboxes died with it, the mounts did not. When made (the bridge starts)
   * it unmounts each HOME that no sandbox has mounted (and each half-made one, `home.new`):
   * ensure() then mounts it afresh, the quota as now configured, and a data dir whose
   * desktops are stopped holds no mount (`rm -rf` of it would fail with EBUSY). A HOME a sandbox still
   * has (its desktop outlived the bridge) stays mounted and ensure() reuses it, never mounting
   * its image a second time.
   */
  private async unmountStale(): Promise<void> {
    if (!isRoot()) return;
    for (const name of await readdir(this.root).catch(() => [] as string[])) {
      if (!/^\d+$/.test(name)) continue;
      const home = join(this.root, name, HOME_DIR);
      if (!(await isMounted(home)) || (await mountedElsewhere(home))) continue;
      await unmountHome(home);
    }
    for (const name of await readdir(this.root).catch(() => [] as string[])) {
      const staging = join(this.root, name, `${HOME_DIR}.new`);
      if (!/^\d+$/.test(name) || !(await isMounted(staging))) continue;
      await unmountHome(staging);
      await rm(staging, { recursive: true, force: true });
    }
  }

  /** As root: the host-wide record's entries of this data dir whose claim folder is gone, and of data dirs that are gone. */
  private async pruneUids(): Promise<void> {
    if (!isRoot()) return;
    await this.uids.prune(this.root, (uid) =>
      stat(join(this.root, String(uid))).then(
        () => true,
        (err: NodeJS.ErrnoException) => err.code !== 'ENOENT',
      ),
    );
  }

  /**
   * Unmounts and deletes a claimed folder, then gives its uid's host-wide entry back (the uid is
   * still never handed out again: see freshUid).
   */
  private async deleteClaim(uid: number): Promise<void> {
    const home = join(this.root, String(uid), HOME_DIR);
    await unmountHome(home);
    // The HOME first: a crash half-way leaves the claim (the uid stays taken), never a HOME
    // without a known owner.
    await rm(join(this.root, String(uid), IMAGE_FILE), { force: true });
    await rm(home, { recursive: true, force: true });
    await rm(join(this.root, String(uid)), { recursive: true, force: true });
    if (isRoot()) await this.uids.release(uid, this.root);
  }

  /** Each claim by the desktop id it was claimed for. */
  private async claims(): Promise<Map<string, Claim>> {
    const claims = new Map<string, Claim>();
    for (const name of await readdir(this.root).catch(() => [] as string[])) {
      if (!/^\d+$/.test(name)) continue;
      const owner = await readFile(join(this.root, name, OWNER_FILE), 'utf8').catch(() => '');
      if (owner === '') continue;
      const person = await readFile(join(this.root, name, PERSON_FILE), 'utf8').catch(() => '');
      claims.set(owner, { uid: Number(name), ownerId: person === '' ? undefined : person });
    }
    return claims;
  }

  /** A fresh uid for `desktopId`, its folder made and its owner written. */
  private async allocate(desktopId: string, ownerId: string): Promise<number> {
    const uid = await this.freshUid();
    // The owner before the desktop: a claim is found by its desktop file, never without owner.
    await writeAtomically(join(this.root, String(uid), PERSON_FILE), ownerId);
    await writeAtomically(join(this.root, String(uid), OWNER_FILE), desktopId);
    return uid;
  }

  /**
   * The next uid after the last one handed out, here and (as root) on the host, its empty folder
   * made: never one handed out before (a deleted desktop's uid could still own something the
   * kernel keeps per uid, such as its keyring), nor one the host's users or groups have or a
   * process runs as, nor (as root) one another data dir took (desktopUids.ts).
   */
  private async freshUid(): Promise<number> {
    const lastFile = join(this.root, LAST_UID_FILE);
    const last = Math.max(
      Number(await readFile(lastFile, 'utf8').catch(() => '')) || 0,
      isRoot() ? await this.uids.last() : 0,
    );
    const busy = isRoot() ? await processUids() : new Set<number>();
    let uid = last >= DESKTOP_UID_FIRST ? last + 1 : DESKTOP_UID_FIRST;
    for (; uid <= DESKTOP_UID_LAST; uid++) {
      if (busy.has(uid) || (await hostHasId(uid))) continue;
      if (isRoot() && !(await this.uids.take(uid, this.root))) continue;
      const claimed = await mkdir(join(this.root, String(uid)), { mode: 0o700 }).then(
        () => true,
        (err: NodeJS.ErrnoException) => {
          if (err.code === 'EEXIST') return false;
          throw err;
        },
      );
      if (!claimed) continue;
      await writeAtomically(lastFile, String(uid));
      return uid;
    }
    throw new Error(
      `No desktop user ids are left (${String(DESKTOP_UID_FIRST)}–${String(DESKTOP_UID_LAST)} are used up); see ${lastFile}.`,
    );
  }
}

function isRoot(): boolean {
  return process.getuid?.() === 0;
}

async function hostHasId(id: number): Promise<boolean> {
  for (const database of ['passwd', 'group']) {
    const found = await run('getent', [database, String(id)]).then(
      () => true,
      () => false,
    );
    if (found) return true;
  }
  return false;
}
