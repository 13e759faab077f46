// Xvnc's command line for a local desktop (localDesktop.ts starts it). What keeps the desktop
// from everyone but its creator is said here: no X over TCP, the RFB server on a Unix socket of
// mode 0600 only (`-rfbport -1`, because with `-rfbunixpath` alone Xvnc 1.12 still opens TCP
// 5900 on every interface), a loopback TCP port only when asked for, and VNC authentication
// when there is a password. Its display number comes back on fd 3 (`-displayfd`).

export interface XvncCommand {
  width: number;
  height: number;
  /** The X cookie file, as Xvnc sees it (sandboxed: where sandbox.ts mounts it). */
  auth: string;
  /** The RFB Unix socket, as Xvnc sees it. */
  rfbUnixPath: string;
  /** A loopback TCP port to serve RFB on as well (rfbTcp); undefined: none. */
  tcpPort: number | undefined;
  /** TigerVNC's password file, as Xvnc sees it; undefined: no authentication. */
  passwordFile: string | undefined;
  /** Appended last (LocalDesktopOptions.extraArgs). */
  extraArgs: readonly string[];
}

export function xvncArgs(command: XvncCommand): string[] {
  return [
    '-geometry',
    `${command.width}x${command.height}`,
    '-depth',
    '24',
    '-displayfd',
    '3',
    '-AlwaysShared',
    '-nolisten',
    'tcp',
    '-auth',
    command.auth,
    '-rfbunixpath',
    command.rfbUnixPath,
    '-rfbunixmode',
    '384', // 0600
    ...(command.tcpPort === undefined
      ? ['-rfbport', '-1']
      : ['-localhost', '-rfbport', String(command.tcpPort)]),
    ...(command.passwordFile === undefined
      ? ['-SecurityTypes', 'None']
      : ['-SecurityTypes', 'VncAuth', '-PasswordFile', command.passwordFile]),
    ...command.extraArgs,
  ];
}
