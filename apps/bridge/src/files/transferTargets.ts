// Where a desktop's transfer folder is. A running local desktop: `Transfer` in the HOME of its
// sandbox (the host side of /home/desktop, which belongs to the desktop's user). An RDP desktop
// (guacd-rdp), when the bridge has a drive root (guacd on this machine): the folder guacd
// redirects into the RDP session as a drive (RDP drive redirection, see rdpDrive.ts), which the
// session sees as a disk of its own (xrdp: ~/thinclient_drives/GUACFS) — the bridge writes and
// reads the folder on this side, the RDP connection carries it to the session. Other kinds say
// plainly why they have none.
import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { LocalDesktop } from '@overlay-companion/gateway';
import { TRANSFER_FOLDER_NAME } from '@overlay-companion/protocol';
import type { LocalDesktopPool } from '../desktops/localDesktopPool.js';
import type { DesktopRecord } from '../store/types.js';
import { DEFAULT_RDP_DRIVE_QUOTA_BYTES, RDP_DRIVE_SHOWN_AS, rdpDriveFolder } from './rdpDrive.js';
import { TransferError, TransferFolder } from './transferFolder.js';

/** Space left free on the desktop's filesystem after any upload. */
export const DEFAULT_RESERVE_BYTES = 64 * 1024 * 1024;

/** A transfer folder and how the desktop's own programs name it. */
export interface TransferTarget {
  folder: Pick<TransferFolder, 'list' | 'write' | 'read'>;
  /** The folder's path as seen on the desktop, e.g. /home/desktop/Transfer. */
  shownAs: string;
}

export interface TransferTargetsOptions {
  pool: Pick<LocalDesktopPool, 'get'> | undefined;
  /** The command line's local desktop (`serve --desktop local` runs it, not the pool). */
  cliLocal?:
    { id: () => Promise<string | undefined>; desktop: () => LocalDesktop | undefined } | undefined;
  /** Where guacd's drive folders of RDP desktops are (rdpDrive.ts); absent: no RDP transfer. */
  rdpDriveRoot?: string | undefined;
  reserveBytes?: number | undefined;
  /** Bytes one RDP desktop's drive folder may hold (default DEFAULT_RDP_DRIVE_QUOTA_BYTES). */
  rdpDriveQuotaBytes?: number | undefined;
}

/** The transfer folder of `desktop`, or a TransferError saying why it has none now. */
export function transferTargets(
  options: TransferTargetsOptions,
): (desktop: DesktopRecord) => Promise<TransferTarget> {
  const reserveBytes = options.reserveBytes ?? DEFAULT_RESERVE_BYTES;
  return async (desktop) => {
    switch (desktop.kind) {
      case 'local':
        return localTarget(options, desktop, reserveBytes);
      case 'guacd-rdp': {
        if (options.rdpDriveRoot === undefined)
          throw new TransferError(
            409,
            `File transfer to "${desktop.name}" needs the RDP drive folder: start the bridge with OC_RDP_DRIVE_DIR naming a folder guacd on this machine can use.`,
          );
        const path = rdpDriveFolder(options.rdpDriveRoot, desktop.id);
        // The folder is the bridge's and guacd's (same user on one machine): files the session
        // writes through the drive belong to guacd's user, the folder's owner.
        const root = await stat(options.rdpDriveRoot);
        return {
          folder: new TransferFolder({
            path,
            uid: root.uid,
            gid: root.gid,
            reserveBytes,
            quotaBytes: options.rdpDriveQuotaBytes ?? DEFAULT_RDP_DRIVE_QUOTA_BYTES,
          }),
          shownAs: RDP_DRIVE_SHOWN_AS,
        };
      }
      case 'vnc':
      case 'guacd-vnc':
        throw new TransferError(
          409,
          `"${desktop.name}" is a VNC desktop, and VNC has no file transfer; use a local or RDP desktop.`,
        );
    }
  };
}

async function localTarget(
  options: TransferTargetsOptions,
  desktop: DesktopRecord,
  reserveBytes: number,
): Promise<TransferTarget> {
  const cli = options.cliLocal;
  const running =
    cli !== undefined && desktop.id === (await cli.id())
      ? cli.desktop()
      : await options.pool?.get(desktop.id);
  const sandbox = running?.sandbox;
  if (running === undefined || sandbox === undefined)
    throw new TransferError(
      409,
      `"${desktop.name}" is not running, so its transfer folder is not there; open it in the viewer first.`,
    );
  // The sandbox's HOME was given to the desktop's user when it started: its owner is that user.
  const home = await stat(sandbox.homeDir);
  if (home.uid !== sandbox.uid)
    throw new TransferError(500, `The HOME of "${desktop.name}" does not belong to its user.`);
  return {
    folder: new TransferFolder({
      path: join(sandbox.homeDir, TRANSFER_FOLDER_NAME),
      uid: home.uid,
      gid: home.gid,
      reserveBytes,
    }),
    shownAs: `${sandbox.homeInDesktop}/${TRANSFER_FOLDER_NAME}`,
  };
}
