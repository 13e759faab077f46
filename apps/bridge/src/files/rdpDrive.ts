// RDP drive redirection for file transfer: each guacd-rdp desktop gets a folder of its own under
// the bridge's drive root, which guacd redirects into the RDP session as a drive (its
// `enable-drive`, `drive-path`, `create-drive-path` parameters). guacd must therefore run on
// the bridge's machine (or see the same folder). The session's programs see the drive as a disk
// of the session (xrdp mounts it with FUSE under ~/thinclient_drives/GUACFS — the machine needs
// the setuid `fusermount`, Debian's `fuse` package, or chansrv mounts nothing and says little).
//
// guacd would also offer that drive to its connection's owner as a Guacamole `filesystem`
// object (`get`/`put` streams): that owner is whichever browser window opened the connection,
// and transfers through it would skip the bridge's checks and audit. So guacd's own upload and
// download are off here (`disable-upload`, `disable-download`), and the tunnel never passes a
// browser's `put`, `get` or `file` on (tunnel/browserInput.ts): files move through the bridge's
// /api/desktops/:id/files only.
//
// The bridge counts what it lets into each desktop's drive folder against a cap of its own
// (DEFAULT_RDP_DRIVE_QUOTA_BYTES: an upload that would take the folder past it is refused), but
// the RDP session writes to the drive directly, through guacd, and nothing of the bridge's sees
// those writes coming: the hard stop for them is the filesystem's own (a quota for guacd's user,
// or a filesystem of its own for OC_RDP_DRIVE_DIR).
import { join } from 'node:path';

/** Bytes one desktop's drive folder may hold before the bridge refuses uploads into it. */
export const DEFAULT_RDP_DRIVE_QUOTA_BYTES = 2 * 1024 * 1024 * 1024;

/** The drive as an xrdp session sees it (guacd announces it with the DOS name GUACFS). */
export const RDP_DRIVE_SHOWN_AS = '~/thinclient_drives/GUACFS (the redirected drive "Transfer")';

/** The folder of one desktop's drive under the root. */
export function rdpDriveFolder(root: string, desktopId: string): string {
  return join(root, desktopId);
}

/** guacd's RDP parameters that redirect the desktop's drive folder into its session. */
export function rdpDriveParams(root: string, desktopId: string): Record<string, string> {
  return {
    'enable-drive': 'true',
    'drive-name': 'Transfer',
    'drive-path': rdpDriveFolder(root, desktopId),
    'create-drive-path': 'true',
    'disable-upload': 'true',
    'disable-download': 'true',
  };
}
