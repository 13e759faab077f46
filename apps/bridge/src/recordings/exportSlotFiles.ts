// The machine's video export slots, shared by every bridge on it that runs as the same user (or
// as root): a site's bridges, or a test run's, on one machine would otherwise each render their
// own share of exports at once. Each slot is a lock file in one folder of the machine:
//   as root   /var/lib/overlay-companion/export-slots/slot-<n>.lock   (beside the desktop uid
//             record, desktops/desktopUids.ts; 0700, root's alone)
//   otherwise /tmp/overlay-companion-<uid>/export-slots/slot-<n>.lock (0700, checked to be this
//             user's own: a folder someone else made there is refused, never used)
// A slot is held with an exclusive flock(2) on its file, which the kernel drops when the file is
// closed — when the export ends or when its process dies in any way (a crash, SIGKILL): no slot
// is left held by a process that is gone, and nothing has to clean up after one. Bridges that
// run as different users (not root) have folders of their own and do not share the limit.
import { closeSync, constants, lstatSync, mkdirSync, openSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { flockSync } from 'fs-ext';
import { DESKTOP_UID_REGISTRY } from '../desktops/desktopUids.js';

/** The machine's folder of video export slots for a bridge running as `uid`. */
export function machineExportSlotsDir(uid: number = process.getuid?.() ?? 0): string {
  return uid === 0
    ? join(dirname(DESKTOP_UID_REGISTRY), 'export-slots')
    : join('/tmp', `overlay-companion-${String(uid)}`, 'export-slots');
}

/** Why the slots' folder cannot be used, said so an operator can fix it. */
export class SlotFolderError extends Error {
  override name = 'SlotFolderError';
}

export class ExportSlotFiles {
  private ready = false;

  constructor(
    readonly dir: string,
    readonly count: number,
  ) {}

  /**
   * Takes a free slot at once (never waits), returning what gives it back, or undefined when
   * all `count` are held — by this process or any other. Throws a SlotFolderError when the
   * folder cannot be made or is not this user's own.
   */
  take(): (() => void) | undefined {
    this.prepare();
    for (let n = 0; n < this.count; n++) {
      // O_NOFOLLOW: a link planted in place of a slot file is refused, not followed. Node opens
      // every file close-on-exec, so ffmpeg never inherits (and never holds) a slot.
      const fd = openSync(
        join(this.dir, `slot-${String(n)}.lock`),
        constants.O_RDWR | constants.O_CREAT | constants.O_NOFOLLOW,
        0o600,
      );
      try {
        flockSync(fd, 'exnb');
      } catch (err) {
        closeSync(fd);
        if ((err as NodeJS.ErrnoException).code === 'EAGAIN') continue;
        throw err;
      }
      let held = true;
      return () => {
        if (!held) return;
        held = false;
        closeSync(fd); // drops the lock
      };
    }
    return undefined;
  }

  /** Makes the folder (0700) once and checks that it is this user's alone. */
  private prepare(): void {
    if (this.ready) return;
    const uid = process.getuid?.() ?? 0;
    try {
      mkdirSync(this.dir, { recursive: true, mode: 0o700 });
    } catch (err) {
      throw new SlotFolderError(
        `Video exports are off: they need the folder ${this.dir} (this machine's export slots, a folder of this user's alone), which could not be made (${(err as Error).message}). Remove what is in its way, and the bridge makes it at the next export.`,
      );
    }
    // The folder and, unless this is root, the one above it (/tmp/overlay-companion-<uid>, which
    // another user could have made first): each a real folder, this user's, closed to others.
    for (const path of uid === 0 ? [this.dir] : [dirname(this.dir), this.dir]) {
      const info = lstatSync(path);
      if (!info.isDirectory() || info.uid !== uid || (info.mode & 0o077) !== 0)
        throw new SlotFolderError(
          `Video exports are off: ${path} (this machine's export slots) is not a folder of this user's alone (uid ${String(uid)}, mode 0700). Remove it, and the bridge makes it again at the next export.`,
        );
    }
    this.ready = true;
  }
}
