// More RDP accounts on the tests' xrdp (xrdp.ts makes one, XRDP_TEST_USER): each a local user
// with a fresh password per run and the same ~/.xsession (openbox, then an xterm), and, for any
// account, the X session its RDP login started — found by its owner, since with two people
// logged in sesman runs one Xorg per account (:10, :11, …) and xrdp.ts's session() would
// answer whichever it meets first. The accounts' stray processes (a session bus that left the
// tree) are ended at stop(); xrdp.ts's stop() ends the sessions themselves (sesman's children).
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFile, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { registerSecret } from './testLogs.js';
import { prepareXrdpUser, type XrdpSession } from './xrdp.js';

export interface XrdpAccount {
  username: string;
  password: string;
  home: string;
}

/** Makes (or reuses) the local user `username` for RDP logins, with this run's password. */
export async function addXrdpAccount(username: string): Promise<XrdpAccount> {
  const password = `pw-${randomBytes(12).toString('base64url')}`;
  registerSecret(password);
  const home = await prepareXrdpUser(username, password);
  return { username, password, home };
}

/**
 * The X session of `username`'s RDP login: waits until an Xorg owned by that user runs and its
 * xterm is mapped.
 */
export async function xrdpSessionOf(username: string, timeoutMs = 60_000): Promise<XrdpSession> {
  const uid = uidOf(username);
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const display = await xorgDisplayOf(uid);
    if (display !== undefined) {
      const env = {
        ...process.env,
        DISPLAY: display,
        XAUTHORITY: join(`/home/${username}`, '.Xauthority'),
      };
      const found = spawnSync('xdotool', ['search', '--onlyvisible', '--class', 'xterm'], {
        env,
        timeout: 5_000,
      });
      if (found.status === 0 && found.stdout.toString().trim() !== '') return { display, env };
    }
    if (Date.now() > deadline)
      throw new Error(
        `No xrdp session of ${username} showed its xterm within ${timeoutMs} ms (display: ${display ?? 'none'}); has an RDP client logged in as ${username}?`,
      );
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

/** Ends what is left of `username`'s processes (SIGTERM, then SIGKILL): a test user only. */
export async function stopAccountProcesses(username: string): Promise<void> {
  const pids = await processesOf(uidOf(username));
  const signal = (pid: number, name: NodeJS.Signals) => {
    try {
      process.kill(pid, name);
    } catch {
      // Already gone.
    }
  };
  for (const pid of pids) signal(pid, 'SIGTERM');
  await new Promise((resolve) => setTimeout(resolve, 1_000));
  for (const pid of await processesOf(uidOf(username))) signal(pid, 'SIGKILL');
}

async function xorgDisplayOf(uid: number): Promise<string | undefined> {
  for (const pid of await processesOf(uid)) {
    const cmdline = await readFile(`/proc/${pid}/cmdline`, 'utf8').catch(() => '');
    const [command, display] = cmdline.split('\0');
    if (command?.endsWith('/Xorg') && display !== undefined && /^:\d+$/.test(display))
      return display;
  }
  return undefined;
}

async function processesOf(uid: number): Promise<number[]> {
  const pids: number[] = [];
  for (const entry of await readdir('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const status = await readFile(`/proc/${entry}/status`, 'utf8').catch(() => '');
    if (new RegExp(`^Uid:\\s+${uid}\\s`, 'm').test(status)) pids.push(Number(entry));
  }
  return pids;
}

function uidOf(username: string): number {
  return Number(idOutput(['-u', username]));
}

function idOutput(args: string[]): string {
  const result = spawnSync('id', args, { encoding: 'utf8' });
  if (result.status !== 0) throw new Error(`id ${args.join(' ')}: ${result.stderr}`);
  return result.stdout.trim();
}
