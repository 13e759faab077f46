// A real RDP desktop for tests: Debian's xrdp + xorgxrdp, run without systemd as root. Makes a
// test user (useradd, a fresh password per run through chpasswd) whose ~/.xsession starts
// openbox and an xterm, starts xrdp-sesman and xrdp (on a free loopback port, from a copy of
// /etc/xrdp/xrdp.ini) and, once an RDP client has logged in, finds the session's Xorg display
// so tests can observe it from X (DISPLAY=:N, XAUTHORITY=~user/.Xauthority). stop() ends every
// process it started — sesman, xrdp, and the session (Xorg, chansrv, the xsession's clients) —
// by pid.
//
// xrdp reads sesman's port from /etc/xrdp/sesman.ini (3350, compiled-in path), so only one
// sesman can run on a machine: test processes take turns through a lock file.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { chown, mkdtemp, open, readFile, readdir, rm, unlink, writeFile } from 'node:fs/promises';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '@overlay-companion/gateway';
import { keepChildOutput, registerSecret } from './testLogs.js';

export const XRDP_TEST_USER = 'oc-rdp-test';
const LOCK_FILE = join(tmpdir(), 'oc-xrdp-test.lock');
const LOCK_WAIT_MS = 5 * 60_000;
const SESMAN_PORT = 3350;
const START_TIMEOUT_MS = 15_000;
/** What the xrdp tests need on the machine; `.ci/run` installs the packages. */
const NEEDED = [
  '/usr/sbin/xrdp',
  '/usr/sbin/xrdp-sesman',
  '/usr/lib/xorg/Xorg',
  '/usr/lib/xorg/modules/drivers/xrdpdev_drv.so',
  '/usr/bin/xterm',
  '/usr/bin/openbox',
];

export interface XrdpOptions {
  /** The xterm's command (e.g. ['sh', '-c', 'cat > FILE']); default a login shell. */
  xtermCommand?: string[];
}

export interface XrdpSession {
  /** The session's X display, e.g. ':10'. */
  display: string;
  /** Environment for X clients (xdotool, xwd, xclip) aimed at the session. */
  env: NodeJS.ProcessEnv;
}

export interface TestXrdp {
  host: string;
  port: number;
  username: string;
  password: string;
  /**
   * The X session an RDP login started: waits until an RDP client has logged in and the
   * session's Xorg answers (and its xterm is mapped).
   */
  session(timeoutMs?: number): Promise<XrdpSession>;
  stop(): Promise<void>;
}

/** Why xrdp tests cannot run here, or undefined when they can. */
export function xrdpMissing(): string | undefined {
  if (process.getuid?.() !== 0)
    return 'xrdp tests must run as root (they add a user and start xrdp-sesman).';
  const missing = NEEDED.filter((path) => !existsSync(path));
  if (missing.length > 0) {
    return `missing ${missing.join(', ')}: apt-get install -y xrdp xorgxrdp xterm openbox`;
  }
  return undefined;
}

export async function startTestXrdp(
  options: XrdpOptions = {},
): Promise<TestXrdp | { skip: string }> {
  const missing = xrdpMissing();
  if (missing !== undefined) return { skip: missing };
  const releaseLock = await takeLock();
  const children: ChildProcess[] = [];
  const workDir = await mkdtemp(join(tmpdir(), 'oc-xrdp-'));
  let stopping: Promise<void> | undefined;
  const stop = (): Promise<void> =>
    (stopping ??= (async () => {
      await stopProcesses(children);
      await rm(workDir, { recursive: true, force: true });
      await releaseLock();
    })());
  try {
    if (await sesmanAnswers()) {
      throw new Error(
        `Something already listens on port ${SESMAN_PORT} (an xrdp-sesman not started by the tests?). Stop it (e.g. systemctl stop xrdp-sesman): the tests start their own.`,
      );
    }
    const password = `pw-${randomBytes(12).toString('base64url')}`;
    registerSecret(password);
    const home = await prepareXrdpUser(XRDP_TEST_USER, password, options);
    const port = await freePort();
    const ini = (await readFile('/etc/xrdp/xrdp.ini', 'utf8')).replace(
      /^port=3389$/m,
      `port=tcp://127.0.0.1:${port}`,
    );
    if (!ini.includes(`tcp://127.0.0.1:${port}`))
      throw new Error('/etc/xrdp/xrdp.ini has no "port=3389" line to point at a test port.');
    const iniPath = join(workDir, 'xrdp.ini');
    await writeFile(iniPath, ini);

    children.push(launch('xrdp-sesman', ['--nodaemon']));
    await waitUntil(sesmanAnswers, 'xrdp-sesman to listen');
    children.push(launch('xrdp', ['--nodaemon', '--config', iniPath]));
    await waitUntil(() => answers('127.0.0.1', port), `xrdp to listen on ${port}`);

    const session = async (timeoutMs = 30_000): Promise<XrdpSession> => {
      let display: string | undefined;
      try {
        await waitUntil(
          async () => {
            display = await sessionDisplay(children);
            if (display === undefined) return false;
            const env = sessionEnv(display, home);
            return windowMapped(env, 'xterm');
          },
          'the xrdp session to show its xterm (has an RDP client logged in?)',
          timeoutMs,
        );
      } catch (err) {
        throw new Error(`${(err as Error).message}\n${await diagnostics(home, display)}`);
      }
      return { display: display as string, env: sessionEnv(display as string, home) };
    };
    return { host: '127.0.0.1', port, username: XRDP_TEST_USER, password, session, stop };
  } catch (err) {
    await stop();
    throw err;
  }
}

/**
 * Creates an RDP test user when missing (any account of the tests: the main one here, more in
 * xrdpAccounts.ts), sets this run's password and writes its ~/.xsession; returns its home.
 */
export async function prepareXrdpUser(
  username: string,
  password: string,
  options: XrdpOptions = {},
): Promise<string> {
  const exists = spawnSync('id', ['-u', username]).status === 0;
  if (!exists) run('useradd', ['-m', '-s', '/bin/bash', username]);
  run('chpasswd', [], `${username}:${password}\n`);
  const home = `/home/${username}`;
  // As the local test desktops' xterm (packages/gateway/src/desktop/localDesktop.ts): the
  // session's X resources would otherwise make it white on black with a bitmap font.
  const xterm = [
    'xterm',
    '-fa',
    'DejaVu Sans Mono',
    '-fs',
    '11',
    '-bg',
    'white',
    '-fg',
    'black',
    '-geometry',
    '100x30+40+40',
    '-e',
    ...(options.xtermCommand ?? ['bash', '--noprofile', '--norc', '-i']),
  ];
  const xsession = [
    '# Written by the tests (apps/bridge/src/testing/xrdp.ts).',
    // UTF-8, as the tests' own desktops: xterm then passes typed characters on as UTF-8.
    'export LANG=C.UTF-8',
    // A client mapped while openbox is still taking over the screen can stay unmapped for
    // good: start the xterm once openbox has announced itself. The session lasts as long as
    // openbox does.
    'openbox --sm-disable &',
    'wm=$!',
    'for _ in $(seq 100); do',
    "  xprop -root _NET_SUPPORTING_WM_CHECK 2>/dev/null | grep -q 'window id' && break",
    '  sleep 0.1',
    'done',
    `${xterm.map(shellQuote).join(' ')} &`,
    'wait "$wm"',
    '',
  ].join('\n');
  const file = join(home, '.xsession');
  await writeFile(file, xsession, { mode: 0o644 });
  const uid = Number(spawnSync('id', ['-u', username]).stdout.toString().trim());
  const gid = Number(spawnSync('id', ['-g', username]).stdout.toString().trim());
  await chown(file, uid, gid);
  return home;
}

function launch(command: string, args: string[]): ChildProcess {
  const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  child.on('error', () => undefined);
  keepChildOutput(command, child);
  // Always read the pipes: the session's Xorg inherits sesman's stderr and logs a line per
  // input event; a pipe nobody reads fills up, and then Xorg blocks writing to it and the whole
  // desktop hangs.
  child.stdout?.resume();
  child.stderr?.resume();
  return child;
}

function run(command: string, args: string[], input?: string): void {
  const result = spawnSync(command, args, { input, encoding: 'utf8' });
  if (result.status !== 0) {
    throw new Error(
      `${command} ${args.join(' ')} failed: ${result.stderr || result.error?.message}`,
    );
  }
}

function sessionEnv(display: string, home: string): NodeJS.ProcessEnv {
  return { ...process.env, DISPLAY: display, XAUTHORITY: join(home, '.Xauthority') };
}

/** The display of the Xorg that sesman started for the session, once there is one. */
async function sessionDisplay(children: ChildProcess[]): Promise<string | undefined> {
  const roots = children.map((c) => c.pid).filter((pid): pid is number => pid !== undefined);
  for (const pid of await descendants(roots)) {
    const cmdline = await readFile(`/proc/${pid}/cmdline`, 'utf8').catch(() => '');
    const [command, display] = cmdline.split('\0');
    if (command?.endsWith('/Xorg') && display !== undefined && /^:\d+$/.test(display)) {
      return display;
    }
  }
  return undefined;
}

/** What the session's processes and logs say, for a failure message. */
async function diagnostics(home: string, display: string | undefined): Promise<string> {
  const ps = spawnSync('ps', ['-u', XRDP_TEST_USER, '-o', 'pid,stat,etime,args'], {
    encoding: 'utf8',
  }).stdout;
  const errors = await readFile(join(home, '.xsession-errors'), 'utf8').catch(() => '');
  return [
    `session display: ${display ?? 'none yet'}`,
    `processes of ${XRDP_TEST_USER}:\n${ps}`,
    `~/.xsession-errors (end):\n${errors.split('\n').slice(-15).join('\n')}`,
  ].join('\n');
}

function windowMapped(env: NodeJS.ProcessEnv, windowClass: string): boolean {
  const found = spawnSync('xdotool', ['search', '--onlyvisible', '--class', windowClass], {
    env,
    timeout: 5_000,
  });
  return found.status === 0 && found.stdout.toString().trim() !== '';
}

/** Every process below `roots` in the process tree (from /proc), deepest last. */
async function descendants(roots: number[]): Promise<number[]> {
  const parents = new Map<number, number>();
  for (const entry of await readdir('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const stat = await readFile(`/proc/${entry}/stat`, 'utf8').catch(() => '');
    // "pid (comm) state ppid ...": comm may hold spaces and parentheses; read after the last ')'.
    const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
    if (Number.isFinite(ppid)) parents.set(Number(entry), ppid);
  }
  const found: number[] = [];
  let frontier = new Set(roots);
  while (frontier.size > 0) {
    const next = new Set<number>();
    for (const [pid, ppid] of parents)
      if (frontier.has(ppid) && !found.includes(pid)) next.add(pid);
    found.push(...next);
    frontier = next;
  }
  return found;
}

/** Processes of the test user that left the tree (daemons such as a session bus). */
async function testUserProcesses(): Promise<number[]> {
  const uid = spawnSync('id', ['-u', XRDP_TEST_USER]).stdout.toString().trim();
  if (uid === '') return [];
  const pids: number[] = [];
  for (const entry of await readdir('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const status = await readFile(`/proc/${entry}/status`, 'utf8').catch(() => '');
    if (new RegExp(`^Uid:\\s+${uid}\\s`, 'm').test(status)) pids.push(Number(entry));
  }
  return pids;
}

/**
 * SIGTERM to the session and the servers (children first), SIGKILL to what is left after a
 * grace period. Only pids from our own process tree, plus processes of the test user, which
 * exists for these tests alone and is used by one test process at a time (the lock).
 */
async function stopProcesses(children: ChildProcess[]): Promise<void> {
  const roots = children.map((c) => c.pid).filter((pid): pid is number => pid !== undefined);
  const targets = [
    ...new Set([...(await descendants(roots)), ...(await testUserProcesses()), ...roots]),
  ];
  const signal = (pid: number, name: NodeJS.Signals) => {
    try {
      process.kill(pid, name);
    } catch {
      // Already gone.
    }
  };
  for (const pid of targets.reverse()) signal(pid, 'SIGTERM');
  const deadline = Date.now() + 5_000;
  const alive = (pid: number) => existsSync(`/proc/${pid}`) && !isZombie(pid);
  while (targets.some(alive) && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  for (const pid of targets.filter(alive)) signal(pid, 'SIGKILL');
  await Promise.all(
    children.map(
      (child) =>
        new Promise<void>((resolve) => {
          if (child.exitCode !== null || child.signalCode !== null) resolve();
          else child.once('exit', () => resolve());
        }),
    ),
  );
}

function isZombie(pid: number): boolean {
  let stat = '';
  try {
    stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return true; // gone
  }
  return stat.slice(stat.lastIndexOf(')') + 2).startsWith('Z');
}

/** Waits for the machine-wide xrdp test lock; a lock whose holder died is taken over. */
async function takeLock(): Promise<() => Promise<void>> {
  const deadline = Date.now() + LOCK_WAIT_MS;
  for (;;) {
    try {
      const handle = await open(LOCK_FILE, 'wx');
      await handle.writeFile(String(process.pid));
      await handle.close();
      return () => unlink(LOCK_FILE).catch(() => undefined);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
    const holder = Number(await readFile(LOCK_FILE, 'utf8').catch(() => ''));
    if (!Number.isInteger(holder) || holder <= 0 || !existsSync(`/proc/${holder}`)) {
      await unlink(LOCK_FILE).catch(() => undefined);
      continue;
    }
    if (Date.now() > deadline) {
      throw new Error(
        `Another test process (pid ${holder}) has held the xrdp lock ${LOCK_FILE} for over ${LOCK_WAIT_MS / 1000} s.`,
      );
    }
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

async function waitUntil(
  probe: () => boolean | Promise<boolean>,
  what: string,
  timeoutMs = START_TIMEOUT_MS,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await probe())) {
    if (Date.now() > deadline)
      throw new Error(`Timed out after ${timeoutMs} ms waiting for ${what}.`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

function answers(host: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host, port });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

/** sesman binds ListenAddress=127.0.0.1 as [::1] on some machines: try both. */
async function sesmanAnswers(): Promise<boolean> {
  return (await answers('127.0.0.1', SESMAN_PORT)) || answers('::1', SESMAN_PORT);
}

function shellQuote(word: string): string {
  return /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}
