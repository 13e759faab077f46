// The `overlay-companion` command as a child process (the built CLI when it is fresh, else the
// source through tsx; see headless/testing/cliProcess.ts): serve starts a real desktop, gateway
// and bridge on a free port and prints the URL; SIGINT stops all of it and exits 0, leaving no
// Xvnc behind; usage errors exit 2 with the usage text.
import type { ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { spawnCli, type CliProcess } from '../headless/testing/cliProcess.js';
import { eventually } from '../testing/tunnelClient.js';

let dataRoot: string;
const children: ChildProcess[] = [];

/** Spawns the CLI (see spawnCli) and remembers it, so afterEach can kill what a test left. */
function cli(args: string[]): CliProcess {
  const run = spawnCli(args);
  children.push(run.child);
  return run;
}

function canConnect(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

/** True if a process whose command line contains `-rfbport <port>` is alive. */
async function xvncAlive(port: number): Promise<boolean> {
  for (const pid of await readdir('/proc')) {
    if (!/^\d+$/.test(pid)) continue;
    const cmdline = await readFile(`/proc/${pid}/cmdline`, 'utf8').catch(() => '');
    if (cmdline.startsWith('Xvnc\0') && cmdline.includes(`\0-rfbport\0${port}\0`)) return true;
  }
  return false;
}

/** Pids of X clients (xterm, openbox) started for display `:n`, found by their environment. */
async function desktopClients(display: number): Promise<string[]> {
  const found: string[] = [];
  for (const pid of await readdir('/proc')) {
    if (!/^\d+$/.test(pid)) continue;
    const cmdline = await readFile(`/proc/${pid}/cmdline`, 'utf8').catch(() => '');
    if (!/^(xterm|openbox)\0/.test(cmdline)) continue;
    const environ = await readFile(`/proc/${pid}/environ`, 'utf8').catch(() => '');
    if (environ.split('\0').includes(`DISPLAY=:${display}`)) found.push(pid);
  }
  return found;
}

beforeAll(async () => {
  dataRoot = await mkdtemp(join(tmpdir(), 'oc-cli-'));
});

afterEach(() => {
  // Only our own children, and only if a failed test left them running.
  for (const child of children.splice(0))
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
});

afterAll(async () => {
  await rm(dataRoot, { recursive: true, force: true });
});

describe('overlay-companion', () => {
  it(
    'serve --desktop local --port 0 prints its URL, serves /healthz, and SIGINT stops it all',
    { timeout: 60_000 },
    async () => {
      const dataDir = join(dataRoot, 'data');
      const run = cli(['serve', '--desktop', 'local', '--port', '0', '--data-dir', dataDir]);
      await eventually(
        () => /Open: +http:\/\//.test(run.stdout()) || run.child.exitCode !== null,
        40_000,
        'the URL',
      );
      const url = /Open: +(http:\/\/\S+)/.exec(run.stdout())?.[1];
      expect(url, run.stderr()).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/$/);
      expect(url).not.toMatch(/:0\/$/);
      const desktop = /display :(\d+) \(VNC 127\.0\.0\.1:(\d+)\)/.exec(run.stdout());
      const display = Number(desktop?.[1]);
      const vncPort = Number(desktop?.[2]);
      expect(vncPort).toBeGreaterThan(0);

      const res = await fetch(new URL('healthz', url));
      expect(res.status).toBe(200);
      expect(await res.json()).toMatchObject({
        status: 'ok',
        tunnels: 0,
        upstream: { protocol: 'vnc' },
      });
      expect(existsSync(dataDir)).toBe(true);
      expect(await canConnect(vncPort)).toBe(true);
      expect(await xvncAlive(vncPort)).toBe(true);
      await eventually(
        async () => (await desktopClients(display)).length === 2,
        20_000,
        'openbox and xterm to start',
      );

      run.child.kill('SIGINT');
      expect(await run.exited).toEqual({ code: 0, signal: null });
      expect(await xvncAlive(vncPort)).toBe(false);
      expect(await desktopClients(display)).toEqual([]);
      expect(await canConnect(vncPort)).toBe(false);
      expect(existsSync(`/tmp/.X11-unix/X${display}`)).toBe(false);
    },
  );

  it.each(['SIGHUP', 'SIGINT'] as const)(
    'serve stops it all on %s even when nobody reads its output any more (terminal closed, parent gone)',
    { timeout: 60_000 },
    async (signal) => {
      const dataDir = join(dataRoot, `gone-${signal}`);
      const run = cli(['serve', '--desktop', 'local', '--port', '0', '--data-dir', dataDir]);
      await eventually(
        () => /Press Ctrl-C to stop/.test(run.stdout()) || run.child.exitCode !== null,
        40_000,
        'the bridge to be ready',
      );
      const desktop = /display :(\d+) \(VNC 127\.0\.0\.1:(\d+)\)/.exec(run.stdout());
      const display = Number(desktop?.[1]);
      const vncPort = Number(desktop?.[2]);
      expect(await xvncAlive(vncPort), run.stderr()).toBe(true);
      await eventually(
        async () => (await desktopClients(display)).length === 2,
        20_000,
        'openbox and xterm to start',
      );
      // The reading ends of its stdout and stderr close: every later write fails with EPIPE,
      // as when the terminal or the process that started it went away.
      run.child.stdout?.destroy();
      run.child.stderr?.destroy();
      run.child.kill(signal);
      await run.exited;
      await eventually(async () => !(await xvncAlive(vncPort)), 10_000, 'Xvnc to be stopped');
      expect(await desktopClients(display)).toEqual([]);
    },
  );

  it(
    'gateway --listen 127.0.0.1:0 runs the gateway alone until SIGTERM',
    { timeout: 30_000 },
    async () => {
      const run = cli(['gateway', '--listen', '127.0.0.1:0']);
      await eventually(
        () => /listening on/.test(run.stdout()) || run.child.exitCode !== null,
        20_000,
        'the gateway',
      );
      const port = Number(/listening on 127\.0\.0\.1:(\d+)/.exec(run.stdout())?.[1]);
      expect(port, run.stderr()).toBeGreaterThan(0);
      expect(await canConnect(port)).toBe(true);
      run.child.kill('SIGTERM');
      expect(await run.exited).toEqual({ code: 0, signal: null });
      expect(await canConnect(port)).toBe(false);
    },
  );

  it('exits 2 with the problem and the usage on bad flags', { timeout: 30_000 }, async () => {
    const run = cli(['serve', '--port', 'eighty']);
    expect((await run.exited).code).toBe(2);
    expect(run.stderr()).toContain('--port expects a number');
    expect(run.stderr()).toContain('Usage: overlay-companion <command>');
    const twoSources = cli(['serve', '--desktop', 'local', '--vnc', '127.0.0.1:5901']);
    expect((await twoSources.exited).code).toBe(2);
    expect(twoSources.stderr()).toContain('Choose one desktop source');
  });
});
