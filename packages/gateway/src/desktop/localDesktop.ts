// Starts and stops a local X desktop served over VNC: TigerVNC's Xvnc on a free display,
// optionally with a light window manager and an xterm. Used by `overlay-companion serve
// --desktop local` and by every test that needs a real desktop.
//
// The desktop reaches nobody but its creator: the RFB server listens only on a Unix socket
// (0600, in a 0700 work dir; Xvnc's command line is xvncCommand.ts's), with VNC authentication
// when a password is given, and the X display needs the cookie in `xauthority` (see
// xauthority.ts). A loopback TCP port is opened only on request (`rfbTcp`), for VNC clients that
// cannot use a Unix socket. The window manager and the xterm: desktopClients.ts.
//
// With `sandbox`, Xvnc, the window manager and the xterm run in one bubblewrap sandbox (see
// sandbox.ts, started and ended by sandboxProcess.ts), when we are root as the unprivileged user
// the caller names (one per desktop) or else the shared desktop user (desktopUser.ts), on a
// display number claimed on the host (displayClaim.ts).
import { spawn, type ChildProcess } from 'node:child_process';
import { chmod, mkdtemp, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { encryptStoredVncPassword } from '../rfb/vncAuth.js';
import { waitForWindowManager, xtermArgs } from './desktopClients.js';
import { claimDisplay } from './displayClaim.js';
import { freePort } from './freePort.js';
import {
  SANDBOX_HOME,
  SANDBOX_PASSWORD_FILE,
  SANDBOX_RFB_DIR,
  SANDBOX_XAUTHORITY,
} from './sandbox.js';
import {
  findDescendant,
  killSandboxInit,
  lockSandbox,
  onPath,
  prepareSandbox,
  spawnSandbox,
  waitUntilGone,
} from './sandboxProcess.js';
import { newCookie, writeXauthority } from './xauthority.js';
import { xvncArgs } from './xvncCommand.js';

export interface LocalDesktopOptions {
  width?: number;
  height?: number;
  /** VNC password; when absent the desktop uses security type None (its socket is 0600). */
  password?: string;
  /** Start a window manager (openbox when installed). Default true. */
  windowManager?: boolean;
  /** Start an xterm; pass a command line to run inside it (e.g. ['sh', '-c', 'cat > f']). */
  xterm?: boolean | { command: string[]; geometry?: string };
  /**
   * Also serve RFB on a free loopback TCP port, for VNC clients that cannot use a Unix socket
   * (Apache guacd, some tests). Every local user can then connect to that port, so only the
   * password stands between them and the desktop. Default false.
   */
  rfbTcp?: boolean;
  /** Extra Xvnc parameters, e.g. ['-AcceptSetDesktopSize=0']. */
  extraArgs?: string[];
  /**
   * Run the desktop's programs (Xvnc, window manager, xterm and whatever is typed into it) in a
   * bubblewrap sandbox with no network, no view of the bridge's processes, environment or files,
   * and, when the bridge is root, as an unprivileged user (its own `user`, else the shared
   * `oc-desktop`): see sandbox.ts.
   * Not with `rfbTcp` (the sandbox has no network). Default false.
   */
  sandbox?: boolean | DesktopSandboxOptions;
}

export interface DesktopSandboxOptions {
  /**
   * Host dir mounted as the sandbox's HOME (read-write), kept after stop; when we are root its
   * owner becomes the desktop user. Default: a fresh dir in the desktop's work dir, removed on
   * stop.
   */
  homeDir?: string;
  /**
   * The unprivileged uid/gid the desktop's programs run as (they need no passwd entry), so that
   * each desktop is its own user: only when we are root. Default: the shared `oc-desktop`.
   */
  user?: { uid: number; gid: number };
}

/** What a sandboxed desktop is, seen from the host. */
export interface DesktopSandbox {
  /** Host path of the sandbox's HOME. */
  homeDir: string;
  /** The same HOME as the desktop's programs see it (SANDBOX_HOME). */
  homeInDesktop: string;
  /**
   * The user its programs run as when the bridge is root: the sandbox option's `user`, else
   * `oc-desktop`; when not root, the bridge's.
   */
  uid: number;
  /** bwrap's process id (the sandbox dies with it). */
  bwrapPid: number;
  /**
   * Whether its socket dirs are read-only and its /tmp and /dev/shm limited in files (lockSandbox
   * in sandboxProcess.ts): only when the bridge is root.
   */
  locked: boolean;
}

export interface LocalDesktop {
  /** X display name, e.g. ':7'. */
  display: string;
  /** The RFB server's Unix socket (0600, in a 0700 dir): give it to the gateway. */
  rfbPath: string;
  /** The X authority file (0600) holding this display's cookie; `env.XAUTHORITY` names it. */
  xauthority: string;
  /** Loopback TCP address of the RFB server: only with `rfbTcp: true`. */
  host: string | undefined;
  port: number | undefined;
  /** Xvnc's process id (as the host sees it, also when sandboxed). */
  pid: number;
  /** Set when the desktop runs sandboxed. */
  sandbox: DesktopSandbox | undefined;
  password: string | undefined;
  width: number;
  height: number;
  /** Environment for X clients (xdotool, xwd, xclip): DISPLAY and XAUTHORITY. */
  env: NodeJS.ProcessEnv;
  /**
   * Start another X client on this desktop; it is stopped with the desktop. It runs OUTSIDE any
   * sandbox, as the bridge with its environment: for the bridge's own tools and tests' observers
   * (xev, xclip), never for programs the AI may drive.
   */
  spawnClient(command: string, args: string[]): ChildProcess;
  /**
   * Settles when the desktop's server (Xvnc, or the sandbox around it) has ended, for whatever
   * reason — stop() included — with how it ended, so its owner can tell a crash from a stop.
   */
  readonly exited: Promise<DesktopExit>;
  stop(): Promise<void>;
}

/** How a desktop's server ended. */
export interface DesktopExit {
  code: number | null;
  signal: string | null;
  /** True when stop() ended it. */
  stopped: boolean;
}

/** A desktop started with `rfbTcp: true`. */
export interface TcpLocalDesktop extends LocalDesktop {
  host: string;
  port: number;
}

export class LocalDesktopError extends Error {
  override name = 'LocalDesktopError';
}

const INSTALL_HINT =
  'Install the desktop packages: apt-get install -y tigervnc-standalone-server tigervnc-tools xauth xterm x11-utils xdotool xclip openbox';
const BWRAP_HINT =
  'Sandboxed desktops need bubblewrap: apt-get install -y bubblewrap (and util-linux for setpriv when running as root)';

/** Linux allows 107 bytes of path in a Unix socket address. */
const MAX_SOCKET_PATH_BYTES = 107;
/** The entry Xvnc reads its cookie from before its display number is known. */
const PLACEHOLDER_DISPLAY = ':0';

export function startLocalDesktop(
  options: LocalDesktopOptions & { rfbTcp: true },
): Promise<TcpLocalDesktop>;
export function startLocalDesktop(options?: LocalDesktopOptions): Promise<LocalDesktop>;
export async function startLocalDesktop(options: LocalDesktopOptions = {}): Promise<LocalDesktop> {
  const width = options.width ?? 1280;
  const height = options.height ?? 800;
  const sandbox = options.sandbox === true ? {} : options.sandbox || undefined;
  if (sandbox !== undefined && options.rfbTcp === true) {
    throw new LocalDesktopError(
      'A sandboxed desktop has no network, so it cannot serve rfbTcp: use its Unix socket (rfbPath), or start it without sandbox.',
    );
  }
  if (sandbox !== undefined && !(await onPath('bwrap'))) {
    throw new LocalDesktopError(`bwrap is not installed. ${BWRAP_HINT}`);
  }
  const tcp = options.rfbTcp === true ? { host: '127.0.0.1', port: await freePort() } : undefined;
  // mkdtemp makes it 0700 already; said again because everything below relies on it.
  const workDir = await mkdtemp(join(tmpdir(), 'oc-desktop-'));
  await chmod(workDir, 0o700);
  // Sandboxed, the RFB socket lives in a dir of its own that the sandbox can write.
  const rfbPath = join(workDir, ...(sandbox === undefined ? [] : ['rfb']), 'rfb.sock');
  const xauthority = join(workDir, 'Xauthority');
  const cookie = newCookie();

  const children: ChildProcess[] = [];
  /** Run before the children are stopped (ending the sandbox's pid namespace). */
  const preludes: (() => Promise<void>)[] = [];
  /** Run after the children are gone (the sandbox's display link and lock). */
  const cleanups: (() => Promise<void>)[] = [];
  let stopped: Promise<void> | undefined;
  const stop = (): Promise<void> => {
    stopped ??= (async () => {
      for (const prelude of preludes) await prelude();
      await Promise.all(children.reverse().map(stopChild));
      for (const cleanup of cleanups.reverse()) await cleanup();
      await rm(workDir, { recursive: true, force: true });
    })();
    return stopped;
  };

  /** Starts Xvnc, waits for its display, then starts the window manager and the xterm. */
  const start = async (): Promise<LocalDesktop> => {
    if (Buffer.byteLength(rfbPath) > MAX_SOCKET_PATH_BYTES) {
      throw new LocalDesktopError(
        `The desktop's socket path ${rfbPath} is longer than Unix sockets allow (${String(MAX_SOCKET_PATH_BYTES)} bytes). Point TMPDIR at a shorter directory.`,
      );
    }
    const box = sandbox === undefined ? undefined : await prepareSandbox(workDir, sandbox);
    if (box !== undefined) {
      const claim = await claimDisplay((n) => join(box.x11Dir, `X${String(n)}`));
      cleanups.push(() => claim.release());
      box.display = claim.display;
    }
    await writeXauthority(xauthority, box?.display ?? PLACEHOLDER_DISPLAY, cookie);
    let passwordFile: string | undefined;
    if (options.password !== undefined) {
      const file = join(workDir, 'passwd');
      passwordFile = file;
      // TigerVNC's password file is exactly the 8 bytes `vncpasswd -f` writes.
      await writeFile(file, encryptStoredVncPassword(options.password), { mode: 0o600 });
    }
    // Inside the sandbox Xvnc sees its files where sandbox.ts mounts them.
    const args = xvncArgs({
      width,
      height,
      auth: box === undefined ? xauthority : SANDBOX_XAUTHORITY,
      rfbUnixPath: box === undefined ? rfbPath : `${SANDBOX_RFB_DIR}/rfb.sock`,
      tcpPort: tcp?.port,
      passwordFile:
        passwordFile === undefined ? undefined : box ? SANDBOX_PASSWORD_FILE : passwordFile,
      extraArgs: options.extraArgs ?? [],
    });

    const xvnc =
      box === undefined
        ? spawn('Xvnc', args, { stdio: ['ignore', 'ignore', 'pipe', 'pipe'] })
        : await spawnSandbox(box, args, {
            xauthority,
            passwordFile,
            windowManager: options.windowManager ?? true,
            xterm: options.xterm ? xtermArgs(options.xterm) : undefined,
          });
    children.push(xvnc);
    if (box !== undefined) preludes.push(() => killSandboxInit(xvnc));
    let stderr = '';
    xvnc.stderr?.on('data', (chunk: Buffer) => {
      stderr = (stderr + chunk.toString()).slice(-4000);
    });
    const displayNumber = await new Promise<number>((resolve, reject) => {
      let text = '';
      const fd3 = xvnc.stdio[3] as NodeJS.ReadableStream | null;
      const fail = (why: string) =>
        reject(new LocalDesktopError(`${why}. ${INSTALL_HINT}\n${stderr}`));
      xvnc.once('error', (err) => fail(`Xvnc could not start (${err.message})`));
      xvnc.once('exit', (code) =>
        fail(`Xvnc exited with code ${String(code)} before it was ready`),
      );
      fd3?.on('data', (chunk: Buffer) => {
        text += chunk.toString();
        const match = /^(\d+)\n/.exec(text);
        if (match?.[1] !== undefined) resolve(Number(match[1]));
      });
      setTimeout(() => fail('Xvnc did not report a display within 15 s'), 15_000).unref();
    });
    xvnc.removeAllListeners('exit');
    xvnc.removeAllListeners('error');
    const exited = new Promise<DesktopExit>((resolve) => {
      const report = (): void =>
        resolve({ code: xvnc.exitCode, signal: xvnc.signalCode, stopped: stopped !== undefined });
      if (xvnc.exitCode !== null || xvnc.signalCode !== null) report();
      else xvnc.once('exit', report);
    });

    const display = `:${String(displayNumber)}`;
    if (box === undefined) {
      await writeXauthority(xauthority, display, cookie, PLACEHOLDER_DISPLAY);
    } else if (display !== box.display) {
      throw new LocalDesktopError(
        `Xvnc in the sandbox reported display ${display}, not the ${box.display} it was given.\n${stderr}`,
      );
    }
    const xvncPid =
      box === undefined ? (xvnc.pid ?? 0) : await findDescendant(xvnc.pid ?? 0, 'Xvnc');
    if (box !== undefined) {
      // Ending the sandbox kills Xvnc; make sure it is gone before its sockets' dir goes.
      cleanups.push(() => waitUntilGone(xvncPid));
    }
    // Xvnc opens its sockets before it reports the display; make sure, rather than let the
    // gateway fail later with a less helpful message.
    if (!(await isSocket(rfbPath))) {
      throw new LocalDesktopError(
        `Xvnc reported display ${display} but no RFB socket at ${rfbPath}.\n${stderr}`,
      );
    }
    // Its socket dirs read-only and its /tmp's files limited before anything else runs in it.
    const locked =
      box !== undefined &&
      (await lockSandbox(xvnc, box, { x11: `X${String(displayNumber)}`, rfb: basename(rfbPath) }));
    const env = { ...process.env, DISPLAY: display, XAUTHORITY: xauthority };
    const spawnClient = (
      command: string,
      clientArgs: string[],
      extraEnv: NodeJS.ProcessEnv = {},
    ): ChildProcess => {
      const child = spawn(command, clientArgs, { env: { ...env, ...extraEnv }, stdio: 'ignore' });
      child.on('error', () => undefined); // a missing optional client must not crash the server
      children.push(child);
      return child;
    };

    if (box !== undefined) {
      // The launcher in the sandbox starts the window manager and the xterm itself.
      if (options.windowManager ?? true) await waitForWindowManager(env, xvnc);
    } else if (options.windowManager ?? true) {
      const wm = spawnClient('openbox', ['--sm-disable']);
      // Clients started while openbox is still taking over the screen can be left unmapped for
      // good (seen: about one start in three); wait until it has announced itself.
      await waitForWindowManager(env, wm);
    }
    if (options.xterm && box === undefined) {
      spawnClient('xterm', xtermArgs(options.xterm), { PS1: '\\u@\\h:\\w\\$ ' });
    }

    return {
      display,
      rfbPath,
      xauthority,
      host: tcp?.host,
      port: tcp?.port,
      pid: xvncPid,
      sandbox:
        box === undefined
          ? undefined
          : {
              homeDir: box.homeDir,
              homeInDesktop: SANDBOX_HOME,
              uid: box.user?.uid ?? process.getuid?.() ?? 0,
              bwrapPid: xvnc.pid ?? 0,
              locked,
            },
      password: options.password,
      width,
      height,
      env,
      spawnClient,
      exited,
      stop,
    };
  };

  try {
    return await start();
  } catch (err) {
    // A desktop that did not come up must not leave Xvnc (or its password and cookie) behind.
    await stop();
    throw err instanceof LocalDesktopError
      ? err
      : new LocalDesktopError(
          `The desktop could not start: ${err instanceof Error ? err.message : String(err)}`,
          { cause: err },
        );
  }
}

function isSocket(path: string): Promise<boolean> {
  return stat(path).then(
    (info) => info.isSocket(),
    () => false,
  );
}

/** SIGTERM, then SIGKILL after 3 s; resolves when the child has exited. */
function stopChild(child: ChildProcess): Promise<void> {
  return new Promise<void>((resolve) => {
    // Gone already, or never started (no pid: spawn failed, no exit event follows).
    if (child.pid === undefined || child.exitCode !== null || child.signalCode !== null)
      return resolve();
    child.once('exit', () => resolve());
    child.kill('SIGTERM');
    setTimeout(() => child.kill('SIGKILL'), 3000).unref();
  });
}
