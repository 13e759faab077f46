// The bubblewrap sandbox a local desktop's programs run in: the `bwrap` argument list (a pure
// function of the host paths and ids it is given) and the launcher script that starts Xvnc, the
// window manager and the xterm inside it. An AI can type any shell line into that xterm, so the
// sandbox is what keeps it away from the bridge: its secrets (environment, /proc), its data dir,
// its code, its loopback port, and the other desktops.
//
// Why each flag is there:
// - `--unshare-all` (or, when we are root, every namespace but the user one: a user namespace
//   would map only root, and `setpriv` could then not switch to the desktop's user): own pid
//   namespace (the bridge's /proc/<pid>/environ and `kill` are out of reach), own network
//   namespace (no network at all; 127.0.0.1 is the sandbox's own empty loopback), own ipc, uts
//   and cgroup namespaces. Unix sockets on bind-mounted dirs still work across namespaces,
//   which is how the gateway (RFB) and X clients outside reach the desktop.
// - `--die-with-parent`: the desktop dies with the bridge, never outlives it.
// - `--new-session`: a new session id, so nothing inside can push keys into the bridge's
//   terminal with TIOCSTI.
// - `--clearenv` + a few `--setenv`: nothing of the bridge's environment (tokens, passwords).
// - `--ro-bind` of /usr and /etc, the merged-/usr symlinks and the fontconfig cache (without
//   it every xterm rebuilds the cache: seconds): programs to run, nothing to change. Nothing of
//   /root, /home, /work, /var, /opt or the bridge's data dir exists inside.
// - `--proc /proc`, `--dev /dev`, `--tmpfs /tmp`: fresh ones that show only the sandbox.
// - Every place inside that the desktop's user can write and that is not its HOME (which has a
//   quota of its own) is held in memory, so each has a size: `--size` before the `--tmpfs` of
//   /tmp and of /dev/shm (its own mount, 1777 as on any host, so shared memory works for the
//   desktop's user and cannot grow past its size), then `--remount-ro` of / and /dev, which
//   are bwrap's own tmpfs mounts: without a user namespace they belong to root, but with one
//   (a bridge not run as root) they belong to the desktop's user, who could otherwise fill
//   memory through /run or /home as well as /tmp.
// - `--bind` HOME, the X socket dir (onto /tmp/.X11-unix, where Xvnc puts its socket) and the
//   RFB socket dir: the only host dirs it can write, all in the desktop's own 0700 work dir (the
//   two socket dirs only until the lock below, as root).
// - `--ro-bind-data` for the cookie and the VNC password: copies, so the host files (0600, the
//   bridge's) are never reachable from inside. Likewise /etc/passwd and /etc/group when the
//   desktop runs as a uid of its own that the host has no entry for (the host's plus its line).
// - When we are root: `setpriv` to the desktop's own unprivileged user with no capabilities,
//   no supplementary groups and no_new_privs (so no setuid program can give root back), under
//   `prlimit --nproc` (SANDBOX_MAX_TASKS: no fork bomb).
// - Once Xvnc's sockets exist, and before anything but Xvnc runs (the launcher waits for a line
//   on its stdin), the bridge locks the sandbox from outside (lockSandbox in sandboxProcess.ts):
//   the X socket and RFB dirs become read-only (Unix sockets still connect on a read-only
//   mount), so the desktop can neither fill the host's disk there nor replace a socket with one
//   of its own, and /tmp and /dev/shm get a limit on their number of files.
export const SANDBOX_HOME = '/home/desktop';
export const SANDBOX_XAUTHORITY = '/run/desktop/Xauthority';
export const SANDBOX_PASSWORD_FILE = '/run/desktop/passwd';
export const SANDBOX_RFB_DIR = '/run/desktop/rfb';
export const SANDBOX_X11_DIR = '/tmp/.X11-unix';
export const SANDBOX_USER_DEFAULT = 'desktop';

/**
 * The size of the sandbox's /tmp, in bytes: a tmpfs, so it is memory, and without a size an AI
 * typing `dd if=/dev/zero of=/tmp/x` would fill the machine's. A constant, not a setting: files
 * a person keeps belong in HOME (its own quota, OC_DESKTOP_HOME_QUOTA), and /tmp needs room for
 * what programs unpack and spool for a while, not for files.
 */
export const SANDBOX_TMP_BYTES = 256 * 1024 * 1024;
/** The size of the sandbox's /dev/shm (memory as well): a browser's shared buffers fit. */
export const SANDBOX_SHM_BYTES = 256 * 1024 * 1024;
/**
 * Files (inodes) the sandbox's /tmp may hold. An empty file takes none of the size above but
 * about 1 KiB of the kernel's memory, and tmpfs allows half the machine's pages by default: a
 * loop of `touch` would eat gigabytes. Set after the start (lockSandbox in sandboxProcess.ts:
 * bwrap has no flag for it), room for unpacking an archive or two.
 */
export const SANDBOX_TMP_INODES = 32_768;
/** Files the sandbox's /dev/shm may hold: shared-memory segments, a few per program. */
export const SANDBOX_SHM_INODES = 4_096;

/**
 * Processes and threads the desktop's user may have at once (RLIMIT_NPROC, counted per uid by
 * the kernel), set as root, where the user is the desktop's own: without it a fork bomb typed
 * into the xterm takes every pid and the host's memory with them. A browser's hundreds of
 * threads fit.
 */
export const SANDBOX_MAX_TASKS = 1024;

/** System directories the desktop's programs need, read-only; absent ones are skipped. */
export const SANDBOX_READ_ONLY_DIRS = ['/usr', '/etc', '/var/cache/fontconfig'] as const;
/** Debian's merged /usr: these are symlinks into /usr on the host and inside. */
export const SANDBOX_USR_SYMLINKS = [
  ['usr/bin', '/bin'],
  ['usr/lib', '/lib'],
  ['usr/lib64', '/lib64'],
  ['usr/sbin', '/sbin'],
] as const;

export interface SandboxArgvOptions {
  /** Host dir mounted read-write as the sandbox's HOME. */
  homeDir: string;
  /** Host dir mounted on /tmp/.X11-unix: Xvnc's X socket appears there. */
  x11Dir: string;
  /** Host dir mounted on SANDBOX_RFB_DIR: Xvnc's RFB socket appears there. */
  rfbDir: string;
  /** X display inside and outside, e.g. ':7'. */
  display: string;
  /** Open fd (in bwrap) to read the X authority file from: copied to SANDBOX_XAUTHORITY. */
  xauthorityFd: number;
  /** Open fd to read the VNC password file from: copied to SANDBOX_PASSWORD_FILE. */
  passwordFd?: number;
  /**
   * Open fds to read /etc/passwd and /etc/group from, shown instead of the host's: for a user
   * of the desktop's own that the host has no entry for.
   */
  accountFds?: { passwd: number; group: number };
  /** The user the programs run as, when we are root; absent: our own user. */
  user?: { name: string; uid: number; gid: number };
  /** Read-only system dirs that exist on this host (default: SANDBOX_READ_ONLY_DIRS). */
  readOnlyDirs?: readonly string[];
  /**
   * RLIMIT_NPROC as root (default SANDBOX_MAX_TASKS): never above the bridge's own hard limit,
   * which bwrap's root, without CAP_SYS_RESOURCE, could not raise.
   */
  maxTasks?: number;
  /** The program and its arguments to run inside. */
  command: string[];
}

/** The arguments for `bwrap` (without the program name itself). */
export function sandboxArgv(options: SandboxArgvOptions): string[] {
  const user = options.user;
  const maxTasks = options.maxTasks ?? SANDBOX_MAX_TASKS;
  const env: Record<string, string> = {
    HOME: SANDBOX_HOME,
    USER: user?.name ?? SANDBOX_USER_DEFAULT,
    PATH: '/usr/bin:/bin',
    LANG: 'C.UTF-8',
    DISPLAY: options.display,
    XAUTHORITY: SANDBOX_XAUTHORITY,
    SHELL: '/bin/bash',
    TERM: 'xterm',
  };
  const namespaces =
    user === undefined
      ? ['--unshare-all']
      : ['--unshare-pid', '--unshare-ipc', '--unshare-uts', '--unshare-cgroup', '--unshare-net'];
  const args = [
    ...namespaces,
    '--die-with-parent',
    '--new-session',
    '--clearenv',
    ...Object.entries(env).flatMap(([name, value]) => ['--setenv', name, value]),
    ...(options.readOnlyDirs ?? SANDBOX_READ_ONLY_DIRS).flatMap((dir) => ['--ro-bind', dir, dir]),
    ...SANDBOX_USR_SYMLINKS.flatMap(([target, link]) => ['--symlink', target, link]),
    '--proc',
    '/proc',
    '--dev',
    '/dev',
    // As root bwrap makes its tmpfs 0755 root: the desktop's user needs /tmp like anywhere.
    '--perms',
    '1777',
    '--size',
    String(SANDBOX_TMP_BYTES),
    '--tmpfs',
    '/tmp',
    '--perms',
    '1777',
    '--size',
    String(SANDBOX_SHM_BYTES),
    '--tmpfs',
    '/dev/shm',
    // bwrap makes the dirs it creates 0700 root; the desktop's user must get through them.
    '--perms',
    '0755',
    '--dir',
    '/home',
    '--perms',
    '0755',
    '--dir',
    '/run/desktop',
    '--bind',
    options.homeDir,
    SANDBOX_HOME,
    '--bind',
    options.x11Dir,
    SANDBOX_X11_DIR,
    '--bind',
    options.rfbDir,
    SANDBOX_RFB_DIR,
    // 0444 inside a sandbox where only the desktop's own user runs: it needs to read them.
    '--perms',
    '0444',
    '--ro-bind-data',
    String(options.xauthorityFd),
    SANDBOX_XAUTHORITY,
    ...(options.passwordFd === undefined
      ? []
      : ['--perms', '0444', '--ro-bind-data', String(options.passwordFd), SANDBOX_PASSWORD_FILE]),
    ...(options.accountFds === undefined
      ? []
      : [
          '--perms',
          '0444',
          '--ro-bind-data',
          String(options.accountFds.passwd),
          '/etc/passwd',
          '--perms',
          '0444',
          '--ro-bind-data',
          String(options.accountFds.group),
          '/etc/group',
        ]),
    // Last: what was made in them above is in place; nothing more can be written there.
    '--remount-ro',
    '/dev',
    '--remount-ro',
    '/',
    '--chdir',
    user === undefined ? SANDBOX_HOME : '/',
    '--',
  ];
  if (user !== undefined) {
    args.push(
      'prlimit',
      `--nproc=${String(maxTasks)}:${String(maxTasks)}`,
      '--',
      'setpriv',
      `--reuid=${String(user.uid)}`,
      `--regid=${String(user.gid)}`,
      '--clear-groups',
      '--inh-caps=-all',
      '--bounding-set=-all',
      '--no-new-privs',
      '--',
    );
  }
  return [...args, ...options.command];
}

/**
 * What runs inside: Xvnc, then (once the bridge has locked the sandbox, see lockSandbox) the
 * window manager, then (once that has announced itself, as in localDesktop.ts) the xterm. The sandbox lives as long as Xvnc.
 * Arguments: display, "1"/"0" for the window manager, the xterm's argument count n (0: none),
 * its n arguments, then Xvnc's arguments. fd 3 is Xvnc's -displayfd, read by the bridge.
 */
export const LAUNCHER_SCRIPT = [
  'set -u',
  'display=$1 wm=$2 nx=$3',
  'shift 3',
  'xterm=("${@:1:nx}")',
  'shift "$nx"',
  'Xvnc "$display" "$@" </dev/null &',
  'xvnc=$!',
  'exec 3>&-',
  // Until Xvnc's socket exists; if Xvnc exits first, so does the sandbox, with its status.
  'for ((i = 0; i < 1500; i++)); do',
  '  [[ -S /tmp/.X11-unix/X${display#:} ]] && break',
  '  kill -0 "$xvnc" 2>/dev/null || { wait "$xvnc"; exit; }',
  '  sleep 0.01',
  'done',
  // Nothing else runs until the bridge has locked the sandbox (sandboxProcess.ts lockSandbox) and
  // says so on stdin; a bridge gone meanwhile (EOF) ends the sandbox.
  'read -r go || exit 1',
  '[[ $go == locked ]] || exit 1',
  'exec </dev/null',
  'if [[ $wm == 1 ]]; then',
  '  openbox --sm-disable >/dev/null 2>&1 &',
  '  for ((i = 0; i < 250; i++)); do',
  // Openbox announces itself (_NET_SUPPORTING_WM_CHECK) before it is ready to manage
  // windows; an xterm mapped in between waits 5 s for it (seen: 5 starts in 6). _NET_WORKAREA
  // comes once it is.
  "    xprop -root _NET_WORKAREA 2>/dev/null | grep -q ' = ' && break",
  // Xvnc gone meanwhile: no answer can come, and the sandbox must end with it now, not after
  // this loop's 5 s (seen: a killed desktop noticed 6 s late while openbox was still starting).
  '    kill -0 "$xvnc" 2>/dev/null || break',
  '    sleep 0.02',
  '  done',
  'fi',
  // A plain interactive bash without startup files (see xtermArgs in localDesktop.ts).
  'if ((nx > 0)); then (cd && PS1=\'\\u@\\h:\\w\\$ \' exec xterm "${xterm[@]}" >/dev/null 2>&1) & fi',
  'wait "$xvnc"',
  '',
].join('\n');

/** The command that runs LAUNCHER_SCRIPT with its arguments (see there). */
export function launcherCommand(
  display: string,
  windowManager: boolean,
  xtermArgs: string[] | undefined,
  xvncArgs: string[],
): string[] {
  return [
    'bash',
    '--noprofile',
    '--norc',
    '-c',
    LAUNCHER_SCRIPT,
    'oc-desktop-launcher',
    display,
    windowManager ? '1' : '0',
    String(xtermArgs?.length ?? 0),
    ...(xtermArgs ?? []),
    ...xvncArgs,
  ];
}
