// Starts and stops a local X desktop served over VNC: TigerVNC's Xvnc on a free display and a
// free loopback port, optionally with a light window manager and an xterm. Used by
// `overlay-companion serve --desktop local` and by every test that needs a real desktop.
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { encryptStoredVncPassword } from '../rfb/vncAuth.js';
import { freePort } from './freePort.js';

export interface LocalDesktopOptions {
  width?: number;
  height?: number;
  /** VNC password; when absent the desktop uses security type None (loopback only). */
  password?: string;
  /** Start a window manager (openbox when installed). Default true. */
  windowManager?: boolean;
  /** Start an xterm; pass a command line to run inside it (e.g. ['sh', '-c', 'cat > f']). */
  xterm?: boolean | { command: string[]; geometry?: string };
  /** Extra Xvnc parameters, e.g. ['-AcceptSetDesktopSize=0']. */
  extraArgs?: string[];
}

export interface LocalDesktop {
  /** X display name, e.g. ':7'. */
  display: string;
  host: string;
  port: number;
  password: string | undefined;
  width: number;
  height: number;
  /** Environment for X clients (xdotool, xwd, xclip) aimed at this desktop. */
  env: NodeJS.ProcessEnv;
  /** Start another X client on this desktop; it is stopped with the desktop. */
  spawnClient(command: string, args: string[]): ChildProcess;
  stop(): Promise<void>;
}

export class LocalDesktopError extends Error {
  override name = 'LocalDesktopError';
}

const INSTALL_HINT =
  'Install the desktop packages: apt-get install -y tigervnc-standalone-server tigervnc-tools xterm x11-utils xdotool xclip openbox';

export async function startLocalDesktop(options: LocalDesktopOptions = {}): Promise<LocalDesktop> {
  const width = options.width ?? 1280;
  const height = options.height ?? 800;
  const host = '127.0.0.1';
  const port = await freePort(host);
  const workDir = await mkdtemp(join(tmpdir(), 'oc-desktop-'));
  const args = [
    '-geometry',
    `${width}x${height}`,
    '-depth',
    '24',
    '-localhost',
    '-rfbport',
    String(port),
    '-displayfd',
    '3',
    '-AlwaysShared',
    '-nolisten',
    'tcp',
  ];
  if (options.password !== undefined) {
    const file = join(workDir, 'passwd');
    // TigerVNC's password file is exactly the 8 bytes `vncpasswd -f` writes.
    await writeFile(file, encryptStoredVncPassword(options.password), { mode: 0o600 });
    args.push('-SecurityTypes', 'VncAuth', '-PasswordFile', file);
  } else {
    args.push('-SecurityTypes', 'None');
  }
  args.push(...(options.extraArgs ?? []));

  const children: ChildProcess[] = [];
  const xvnc = spawn('Xvnc', args, { stdio: ['ignore', 'ignore', 'pipe', 'pipe'] });
  children.push(xvnc);
  let stderr = '';
  xvnc.stderr?.on('data', (chunk: Buffer) => {
    stderr = (stderr + chunk.toString()).slice(-4000);
  });

  let stopped: Promise<void> | undefined;
  const stop = (): Promise<void> => {
    stopped ??= (async () => {
      await Promise.all(
        children.reverse().map(
          (child) =>
            new Promise<void>((resolve) => {
              // Gone already, or never started (no pid: spawn failed, no exit event follows).
              if (child.pid === undefined || child.exitCode !== null || child.signalCode !== null)
                return resolve();
              child.once('exit', () => resolve());
              child.kill('SIGTERM');
              setTimeout(() => child.kill('SIGKILL'), 3000).unref();
            }),
        ),
      );
      await rm(workDir, { recursive: true, force: true });
    })();
    return stopped;
  };

  /** Waits for Xvnc's display, then starts the window manager and the xterm. */
  const startClients = async (): Promise<LocalDesktop> => {
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

    const display = `:${displayNumber}`;
    const env = { ...process.env, DISPLAY: display };
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

    if (options.windowManager ?? true) {
      const wm = spawnClient('openbox', ['--sm-disable']);
      // Clients started while openbox is still taking over the screen can be left unmapped for
      // good (seen: about one start in three); wait until it has announced itself.
      await waitForWindowManager(env, wm);
    }
    if (options.xterm) {
      // waitForWM off: Xt otherwise waits up to 5 s for the window manager's first answer.
      const xtermArgs = ['-fa', 'DejaVu Sans Mono', '-fs', '11', '-xrm', 'XTerm*waitForWM: false'];
      if (typeof options.xterm === 'object') {
        xtermArgs.push(
          '-geometry',
          options.xterm.geometry ?? '100x30+40+40',
          '-e',
          ...options.xterm.command,
        );
      } else {
        // A plain interactive bash without startup files: the person's .bashrc can take seconds
        // (seen: pyenv rehash), and keys typed meanwhile are lost, so the desktop would not be
        // ready when it says it is.
        xtermArgs.push('-geometry', '100x30+40+40', '-e', 'bash', '--noprofile', '--norc', '-i');
      }
      spawnClient('xterm', xtermArgs, { PS1: '\\u@\\h:\\w\\$ ' });
    }

    return {
      display,
      host,
      port,
      password: options.password,
      width,
      height,
      env,
      spawnClient,
      stop,
    };
  };

  try {
    return await startClients();
  } catch (err) {
    // A desktop that did not come up must not leave Xvnc (or its password file) behind.
    await stop();
    throw err;
  }
}

/**
 * Resolves once a window manager has set _NET_SUPPORTING_WM_CHECK on the root window, or when
 * it has exited or not appeared within 5 s (the desktop still works without one).
 */
async function waitForWindowManager(env: NodeJS.ProcessEnv, wm: ChildProcess): Promise<void> {
  const deadline = Date.now() + 5000;
  while (Date.now() < deadline && wm.exitCode === null && wm.signalCode === null) {
    const announced = await new Promise<boolean>((resolve) => {
      execFile('xprop', ['-root', '_NET_SUPPORTING_WM_CHECK'], { env, timeout: 2000 }, (err, out) =>
        resolve(err === null && out.includes('window id')),
      );
    });
    if (announced) return;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
