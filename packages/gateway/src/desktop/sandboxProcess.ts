// Starting and ending a desktop's bubblewrap sandbox on the host (see sandbox.ts for what is in
// it): the dirs it may write, owned by the user it runs as; bwrap itself, with the cookie and
// VNC password handed over as copies through fds; the lock put on it once Xvnc's sockets exist;
// the host pids of what runs inside; and an end that leaves neither processes nor zombies.
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import {
  access,
  chown,
  constants,
  mkdir,
  open,
  readdir,
  readFile,
  stat,
  writeFile,
  type FileHandle,
} from 'node:fs/promises';
import { delimiter, join } from 'node:path';
import { promisify } from 'node:util';
import { ensureDesktopUser, type DesktopUser } from './desktopUser.js';
import { confineDesktopMemory } from './desktopMemory.js';
import {
  launcherCommand,
  SANDBOX_HOME,
  SANDBOX_MAX_TASKS,
  SANDBOX_READ_ONLY_DIRS,
  SANDBOX_RFB_DIR,
  SANDBOX_SHM_INODES,
  SANDBOX_TMP_INODES,
  SANDBOX_USER_DEFAULT,
  SANDBOX_X11_DIR,
  sandboxArgv,
} from './sandbox.js';

const run = promisify(execFile);

export interface PreparedSandbox {
  workDir: string;
  homeDir: string;
  x11Dir: string;
  rfbDir: string;
  user: DesktopUser | undefined;
  /** The user is a bare uid of the caller's, with no passwd entry on the host. */
  ownAccount: boolean;
  display: string;
}

/** Makes the dirs the sandbox writes, owned by the user it runs as. */
export async function prepareSandbox(
  workDir: string,
  options: { homeDir?: string; user?: { uid: number; gid: number } },
): Promise<PreparedSandbox> {
  const root = process.getuid?.() === 0;
  if (options.user !== undefined && !root) {
    throw new Error('Only a bridge running as root can run a desktop as a user of its own.');
  }
  if (options.user !== undefined && (options.user.uid === 0 || options.user.gid === 0)) {
    throw new Error('A desktop never runs as root.');
  }
  const user = !root
    ? undefined
    : options.user === undefined
      ? await ensureDesktopUser()
      : { name: SANDBOX_USER_DEFAULT, ...options.user };
  const box = {
    workDir,
    ownAccount: root && options.user !== undefined,
    homeDir: options.homeDir ?? join(workDir, 'home'),
    x11Dir: join(workDir, 'x11'),
    rfbDir: join(workDir, 'rfb'),
    user,
    display: '',
  };
  for (const dir of [box.homeDir, box.x11Dir, box.rfbDir]) {
    await mkdir(dir, { recursive: true, mode: 0o700 });
    if (user !== undefined) await chown(dir, user.uid, user.gid);
  }
  return box;
}

/** Starts bwrap running the launcher (sandbox.ts); fd 3 is Xvnc's -displayfd, as unsandboxed. */
export async function spawnSandbox(
  box: PreparedSandbox,
  xvncArgs: string[],
  options: {
    xauthority: string;
    passwordFile: string | undefined;
    windowManager: boolean;
    /** The xterm's arguments; undefined: no xterm. */
    xterm: string[] | undefined;
  },
): Promise<ChildProcess> {
  // bwrap copies these into the sandbox (fds from 4 on): the host files stay the bridge's, 0600.
  const files = [await open(options.xauthority, 'r')];
  const fdOf = (file: FileHandle): number => 4 + files.indexOf(file);
  const password =
    options.passwordFile === undefined ? undefined : await open(options.passwordFile, 'r');
  if (password !== undefined) files.push(password);
  try {
    // A uid of its own has no passwd entry on the host: the sandbox's /etc/passwd and /etc/group
    // get one (else `whoami` fails and the prompt says "I have no name!").
    const accounts =
      box.user === undefined || !box.ownAccount
        ? undefined
        : await writeAccountFiles(box.workDir, box.user);
    if (accounts !== undefined) files.push(accounts.passwd, accounts.group);
    const readOnlyDirs: string[] = [];
    for (const dir of SANDBOX_READ_ONLY_DIRS) if (await isDir(dir)) readOnlyDirs.push(dir);
    const argv = sandboxArgv({
      homeDir: box.homeDir,
      x11Dir: box.x11Dir,
      rfbDir: box.rfbDir,
      display: box.display,
      xauthorityFd: fdOf(files[0] as FileHandle),
      passwordFd: password === undefined ? undefined : fdOf(password),
      accountFds:
        accounts === undefined
          ? undefined
          : { passwd: fdOf(accounts.passwd), group: fdOf(accounts.group) },
      user: box.user,
      readOnlyDirs,
      maxTasks: Math.min(SANDBOX_MAX_TASKS, await hardTaskLimit()),
      command: launcherCommand(box.display, options.windowManager, options.xterm, xvncArgs),
    });
    const bwrap = spawn('bwrap', argv, {
      // Only what finding bwrap needs; the sandbox clears its environment anyway.
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin' },
      // stdin: the launcher waits on it for lockSandbox's word before it starts anything else.
      stdio: ['pipe', 'ignore', 'pipe', 'pipe', ...files.map((file) => file.fd)],
    });
    bwrap.stdin?.on('error', () => undefined); // a sandbox that ended before the word: EPIPE
    return bwrap;
  } finally {
    await Promise.all(files.map((file) => file.close()));
  }
}

/**
 * Locks the sandbox once Xvnc has made its sockets, from outside (in its mount namespace, as
 * root), then lets the launcher go on (sandbox.ts): the socket dirs become read-only — the
 * desktop can no longer write files there (on the host's disk, unlimited) nor replace Xvnc's
 * sockets with its own for the gateway or the bridge's X clients to talk to — and /tmp and
 * /dev/shm get their file limits (SANDBOX_TMP_INODES). Then each socket dir must hold its one
 * socket and nothing else, or the start fails.
 *
 * Without root there is no lock: bwrap puts the sandbox's mounts in a user namespace of its
 * own that nothing outside can enter with util-linux 2.38's nsenter (2.39 has --user-parent),
 * and the desktop's programs run as the bridge's user, the dirs' owner. The launcher is let go
 * all the same. Either way its processes become the OOM killer's first choice, and as root get
 * a memory limit where the kernel allows (desktopMemory.ts). Returns whether it locked.
 */
export async function lockSandbox(
  bwrap: ChildProcess,
  box: PreparedSandbox,
  sockets: { x11: string; rfb: string },
): Promise<boolean> {
  const locked = box.user !== undefined;
  if (locked) {
    const init = await sandboxInit(bwrap);
    const inSandbox = (args: string[]) => run('nsenter', ['-t', String(init), '-m', '--', ...args]);
    // A bind remount sets every flag anew: the ones bwrap gave its binds are said again.
    for (const dir of [SANDBOX_X11_DIR, SANDBOX_RFB_DIR]) {
      await inSandbox(['mount', '-o', 'remount,bind,ro,nosuid,nodev,noexec', dir]);
    }
    await inSandbox(['mount', '-o', `remount,nr_inodes=${String(SANDBOX_TMP_INODES)}`, '/tmp']);
    await inSandbox(['mount', '-o', `remount,nr_inodes=${String(SANDBOX_SHM_INODES)}`, '/dev/shm']);
    // Anything else was put there before the lock (nothing but Xvnc ran): refuse to go on.
    for (const [dir, name] of [
      [box.x11Dir, sockets.x11],
      [box.rfbDir, sockets.rfb],
    ] as const) {
      const names = await readdir(dir);
      if (names.length !== 1 || names[0] !== name) {
        throw new Error(`The sandbox's ${dir} holds ${names.join(', ')}, not only ${name}.`);
      }
    }
  }
  // The OOM killer's first choice, and (as root, where the kernel lets us) a memory limit of its
  // own, before anything but Xvnc runs: all it starts later inherits both (desktopMemory.ts).
  await confineDesktopMemory(bwrap.pid ?? 0, { cap: locked });
  bwrap.stdin?.end('locked\n');
  return locked;
}

/** The sandbox's pid 1 (bwrap's child), in the sandbox's namespaces. */
async function sandboxInit(bwrap: ChildProcess): Promise<number> {
  const pid = String(bwrap.pid ?? 0);
  const children = await readFile(`/proc/${pid}/task/${pid}/children`, 'utf8').catch(() => '');
  const init = Number(children.trim().split(' ')[0]);
  if (!Number.isSafeInteger(init) || init <= 0) throw new Error('The sandbox has no process.');
  return init;
}

/** The host's passwd and group files plus the desktop user's lines, opened for bwrap. */
async function writeAccountFiles(
  workDir: string,
  user: DesktopUser,
): Promise<{ passwd: FileHandle; group: FileHandle }> {
  const id = (n: number): string => String(n);
  const withLine = async (file: string, line: string): Promise<string> => {
    const host = await readFile(file, 'utf8').catch(() => '');
    return `${host}${host === '' || host.endsWith('\n') ? '' : '\n'}${line}\n`;
  };
  const passwd = join(workDir, 'passwd-accounts');
  const group = join(workDir, 'group-accounts');
  await writeFile(
    passwd,
    await withLine(
      '/etc/passwd',
      `${user.name}:x:${id(user.uid)}:${id(user.gid)}:Desktop:${SANDBOX_HOME}:/bin/bash`,
    ),
    { mode: 0o600 },
  );
  await writeFile(group, await withLine('/etc/group', `${user.name}:x:${id(user.gid)}:`), {
    mode: 0o600,
  });
  return { passwd: await open(passwd, 'r'), group: await open(group, 'r') };
}

/** This process's hard RLIMIT_NPROC (Infinity when unlimited or unreadable). */
async function hardTaskLimit(): Promise<number> {
  const limits = await readFile('/proc/self/limits', 'utf8').catch(() => '');
  const hard = /^Max processes\s+\S+\s+(\d+)/m.exec(limits)?.[1];
  return hard === undefined ? Infinity : Number(hard);
}

export async function onPath(program: string): Promise<boolean> {
  for (const dir of (process.env.PATH ?? '/usr/bin:/bin').split(delimiter)) {
    if (dir === '') continue;
    const found = await access(join(dir, program), constants.X_OK).then(
      () => true,
      () => false,
    );
    if (found) return true;
  }
  return false;
}

function isDir(path: string): Promise<boolean> {
  return stat(path).then(
    (info) => info.isDirectory(),
    () => false,
  );
}

/**
 * SIGKILLs the sandbox's init (bwrap's child, pid 1 of its pid namespace): the kernel then
 * kills everything in the sandbox, and bwrap, seeing its child gone, exits and reaps it. (Ending
 * bwrap first works too, through --die-with-parent, but leaves its child a zombie wherever the
 * host's init does not reap orphans.)
 */
export async function killSandboxInit(bwrap: ChildProcess): Promise<void> {
  if (bwrap.pid === undefined || bwrap.exitCode !== null || bwrap.signalCode !== null) return;
  const pid = String(bwrap.pid);
  // bwrap exits by itself once its child is gone; a SIGTERM before that would orphan the child.
  const exited = new Promise<void>((resolve) => {
    bwrap.once('exit', () => resolve());
    setTimeout(resolve, 2000).unref();
  });
  const children = await readFile(`/proc/${pid}/task/${pid}/children`, 'utf8').catch(() => '');
  for (const child of children.split(' ').filter(Boolean)) {
    try {
      process.kill(Number(child), 'SIGKILL');
    } catch {
      // gone already
    }
  }
  await exited;
}

/** The host pid of the first process named `name` below `root` (0 if none within 2 s). */
export async function findDescendant(root: number, name: string): Promise<number> {
  const deadline = Date.now() + 2000;
  do {
    const queue = [root];
    for (let pid = queue.shift(); pid !== undefined; pid = queue.shift()) {
      const comm = await readFile(`/proc/${String(pid)}/comm`, 'utf8').catch(() => '');
      if (pid !== root && comm.trim() === name) return pid;
      const children = await readFile(
        `/proc/${String(pid)}/task/${String(pid)}/children`,
        'utf8',
      ).catch(() => '');
      queue.push(...children.split(' ').filter(Boolean).map(Number));
    }
    await new Promise((resolve) => setTimeout(resolve, 20));
  } while (Date.now() < deadline);
  return 0;
}

/** Resolves once `pid` has exited (or is a zombie), at most after 5 s. */
export async function waitUntilGone(pid: number): Promise<void> {
  const deadline = Date.now() + 5000;
  while (pid > 0 && Date.now() < deadline) {
    const line = await readFile(`/proc/${String(pid)}/stat`, 'utf8').catch(() => '');
    if (line === '' || /\) Z /.test(line)) return;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
