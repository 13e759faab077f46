// Where a desktop's transfer folder is: for a running local desktop, `Transfer` in the HOME of
// its sandbox (the host side of /home/desktop, which belongs to the desktop's user). Other kinds
// say plainly why they have none (yet).
import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import { TRANSFER_FOLDER_NAME } from '@overlay-companion/protocol';
import type { LocalDesktopPool } from '../desktops/localDesktopPool.js';
import type { DesktopRecord } from '../store/types.js';
import { TransferError, TransferFolder } from './transferFolder.js';

/** Space left free on the desktop's filesystem after any upload. */
export const DEFAULT_RESERVE_BYTES = 64 * 1024 * 1024;

/** A transfer folder and how the desktop's own programs name it. */
export interface TransferTarget {
  folder: Pick<TransferFolder, 'list' | 'write' | 'read'>;
  /** The folder's path as seen on the desktop, e.g. /home/desktop/Transfer. */
  shownAs: string;
}

export interface LocalFoldersOptions {
  pool: Pick<LocalDesktopPool, 'get'> | undefined;
  reserveBytes?: number | undefined;
}

/** The transfer folder of `desktop`, or a TransferError saying why it has none now. */
export function localFolders(
  options: LocalFoldersOptions,
): (desktop: DesktopRecord) => Promise<TransferTarget> {
  return async (desktop) => {
    if (desktop.kind !== 'local')
      throw new TransferError(
        409,
        desktop.kind === 'guacd-rdp'
          ? `File transfer to RDP desktops is not available yet; "${desktop.name}" is one.`
          : `"${desktop.name}" is a VNC desktop, and VNC has no file transfer; use a local or RDP desktop.`,
      );
    const running = await options.pool?.get(desktop.id);
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
        reserveBytes: options.reserveBytes ?? DEFAULT_RESERVE_BYTES,
      }),
      shownAs: `${sandbox.homeInDesktop}/${TRANSFER_FOLDER_NAME}`,
    };
  };
}
