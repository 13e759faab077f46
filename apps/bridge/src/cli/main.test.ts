// The `overlay-companion` command as a child process (the built CLI when it is fresh, else the
// source through tsx; see headless/testing/cliProcess.ts): serve opens its store in the data
// dir, prints the one-time setup link (no admin yet), starts a real desktop whose VNC server and
// X display only its owner reaches (a Unix socket, no TCP port; an X cookie), the embedded
// gateway on a Unix socket and the bridge on a free port; SIGINT stops all of it and exits 0,
// leaving no Xvnc behind; usage errors exit 2 with the usage text.
import { execFile, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readdir, readFile, stat } from 'node:fs/promises';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { spawnCli, type CliProcess } from '../headless/testing/cliProcess.js';
import { eventually } from '@overlay-companion/gateway/testing';
import { removeDataDir } from '../testing/dataDirs.js';

const run = promisify(execFile);
let dataRoot: string;
const children: ChildProcess[] = [];

/** Spawns the CLI (see spawnCli) and remembers it, so afterEach can kill what a test left. */
function cli(args: string[]): CliProcess {
  const run = spawnCli(args);
  children.push(run.child);
  return run;
}

/** Resolves with the first bytes a Unix-socket server sends, or undefined if none answers. */
function greeting(path: string): Promise<string | undefined> {
  return new Promise((resolve) => {
    const socket = connect({ path });
    socket.setTimeout(5000, () => {
      socket.destroy();
      resolve(undefined);
    });
    socket.once('data', (data: Buffer) => {
      socket.destroy();
      resolve(data.toString('latin1'));
    });
    socket.once('error', () => resolve(undefined));
  });
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

/** `serve --desktop local --port 0`, once it says it is ready (or has exited). */
async function serveLocal(dataDir: string): Promise<CliProcess> {
  const serve = cli(['serve', '--desktop', 'local', '--port', '0', '--data-dir', dataDir]);
  await eventually(
    'the bridge to be ready',
    () => /Press Ctrl-C to stop/.test(serve.stdout()) || serve.child.exitCode !== null,
    40_000,
  );
  return serve;
}

const cmdlineOf = (pid: string) => readFile(`/proc/${pid}/cmdline`, 'utf8').catch(() => '');
const parentOf = async (pid: string) =>
  /^PPid:\s+(\d+)/m.exec(await readFile(`/proc/${pid}/status`, 'utf8').catch(() => ''))?.[1];

/**
 * The live processes running `program` (xterm, Xvnc…) in the desktop whose cookie file is
 * `xauthority`: the desktop runs sandboxed (its programs see its own paths), so they are found
 * as descendants of the bubblewrap process whose mounts name that desktop's work dir — never by
 * display number, which another test's desktop may take as soon as this one frees it.
 */
async function desktopProcesses(
  xauthority: string,
  program: RegExp,
): Promise<Array<{ pid: number; args: string[] }>> {
  const workDir = dirname(xauthority);
  const found: Array<{ pid: number; args: string[] }> = [];
  for (const pid of await readdir('/proc')) {
    if (!/^\d+$/.test(pid)) continue;
    const cmdline = await cmdlineOf(pid);
    if (!program.test(cmdline)) continue;
    for (let up = await parentOf(pid), depth = 0; up !== undefined && depth < 6; depth++) {
      if ((await cmdlineOf(up)).includes(`${workDir}/`)) {
        found.push({ pid: Number(pid), args: cmdline.split('\0') });
        break;
      }
      up = await parentOf(up);
    }
  }
  return found;
}

/** The live Xvnc of the desktop whose cookie file is `xauthority`: its pid and command line. */
async function xvncProcess(
  xauthority: string,
): Promise<{ pid: number; args: string[] } | undefined> {
  return (await desktopProcesses(xauthority, /^Xvnc\0/))[0];
}

/** The command line (arguments) of that Xvnc, if it runs. */
async function xvncFor(xauthority: string): Promise<string[] | undefined> {
  return (await xvncProcess(xauthority))?.args;
}

/** What `serve --desktop local` printed about its desktop: the display and its X cookie file. */
function desktopLine(stdout: string): { display: number; xauthority: string } {
  const match = /Desktop: local desktop on display :(\d+) \(XAUTHORITY=([^;\s]+);/.exec(stdout);
  return { display: Number(match?.[1]), xauthority: match?.[2] ?? '' };
}

/** Pids of the X clients (xterm, openbox) of the desktop whose cookie file is `xauthority`. */
async function desktopClients(xauthority: string): Promise<number[]> {
  return (await desktopProcesses(xauthority, /^(xterm|openbox)\0/)).map((p) => p.pid);
}

/** Which of `pids` still run an xterm or openbox (a reused pid runs another program). */
async function stillRunning(pids: number[]): Promise<number[]> {
  const left: number[] = [];
  for (const pid of pids)
    if (/^(xterm|openbox)\0/.test(await cmdlineOf(String(pid)))) left.push(pid);
  return left;
}

beforeAll(async () => {
  dataRoot = await mkdtemp(join(tmpdir(), 'oc-cli-'));
});

afterEach(async () => {
  // Only our own children, and only if a failed test left them running: SIGINT first, so serve
  // stops the desktop it started (SIGKILL would leave its Xvnc behind), SIGKILL if it hangs.
  for (const child of children.splice(0)) {
    if (child.exitCode !== null || child.signalCode !== null) continue;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGINT');
    const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
    await exited;
    clearTimeout(timer);
  }
});

afterAll(async () => {
  await removeDataDir(dataRoot);
});

describe('overlay-companion', () => {
  it(
    'serve --desktop local --port 0 prints its URL and setup link, serves /healthz, and SIGINT stops it all',
    { timeout: 60_000 },
    async () => {
      const dataDir = join(dataRoot, 'data');
      const serve = await serveLocal(dataDir);
      const stdout = serve.stdout();
      const url = /Open: +(http:\/\/\S+)/.exec(stdout)?.[1];
      expect(url, serve.stderr()).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/$/);
      expect(url).not.toMatch(/:0\/$/);
      // No admin yet: the one-time setup link, on the bridge's own address.
      expect(stdout).toMatch(
        new RegExp(`First run: open ${url ?? '-'}setup#code=[A-Za-z0-9_-]{16,}\\s`),
      );
      expect(stdout).toContain(`MCP endpoint: ${url ?? '-'}mcp (Streamable HTTP`);
      expect(stdout).not.toMatch(/Bearer (?!<token>)/);

      const res = await fetch(new URL('healthz', url));
      expect(res.status).toBe(200);
      expect(await res.text()).toBe('ok');
      // Everything else needs sign-in.
      expect((await fetch(new URL('api/me', url))).status).toBe(401);

      // The data dir is the owner's alone, holds the store and the gateway's socket, and no
      // token file.
      expect(((await stat(dataDir)).mode & 0o777).toString(8)).toBe('700');
      const files = await readdir(dataDir);
      expect(files.some((f) => f.endsWith('.sqlite') || f.endsWith('.db'))).toBe(true);
      expect(files).not.toContain('mcp-token');
      const gatewaySocket = join(dataDir, 'run', 'gateway.sock');
      expect((await stat(gatewaySocket)).isSocket()).toBe(true);

      const { display, xauthority } = desktopLine(stdout);
      expect(display).toBeGreaterThanOrEqual(0);
      const xvnc = await xvncFor(xauthority);
      expect(xvnc, `no Xvnc with -auth ${xauthority}`).toBeDefined();
      // VNC only on a Unix socket: no TCP port at all.
      // Inside the sandbox the socket is /run/desktop/rfb/rfb.sock: on the host, the work dir's.
      const rfbPath = join(dirname(xauthority), 'rfb', 'rfb.sock');
      expect(xvnc?.[xvnc.indexOf('-rfbunixpath') + 1]).toBe('/run/desktop/rfb/rfb.sock');
      expect(xvnc?.[xvnc.indexOf('-rfbport') + 1]).toBe('-1');
      expect(await greeting(rfbPath)).toMatch(/^RFB 003\.00\d\n/);
      // X clients need the cookie in XAUTHORITY; without it the display refuses them.
      const xEnv = { ...process.env, DISPLAY: `:${display}`, XAUTHORITY: xauthority };
      await expect(run('xdotool', ['getmouselocation'], { env: xEnv })).resolves.toBeDefined();
      const { XAUTHORITY: _ignored, ...noCookie } = xEnv;
      await expect(
        run('xdotool', ['getmouselocation'], { env: { ...noCookie, HOME: dataRoot } }),
      ).rejects.toThrow();
      const clients = await eventually(
        'openbox and xterm to start',
        async () => {
          const found = await desktopClients(xauthority);
          return found.length === 2 && found;
        },
        20_000,
      );

      serve.child.kill('SIGINT');
      expect(await serve.exited).toEqual({ code: 0, signal: null });
      expect(await xvncFor(xauthority)).toBeUndefined();
      expect(await stillRunning(clients)).toEqual([]);
      expect(existsSync(rfbPath)).toBe(false);
      expect(existsSync(gatewaySocket)).toBe(false);
      expect(existsSync(`/tmp/.X11-unix/X${display}`)).toBe(false);
      expect(await canConnect(Number(new URL(url ?? 'http://x:1').port))).toBe(false);
    },
  );

  it.each(['SIGHUP', 'SIGINT'] as const)(
    'serve stops it all on %s even when nobody reads its output any more (terminal closed, parent gone)',
    { timeout: 60_000 },
    async (signal) => {
      const dataDir = join(dataRoot, `gone-${signal}`);
      const serve = await serveLocal(dataDir);
      const { xauthority } = desktopLine(serve.stdout());
      expect(await xvncFor(xauthority), serve.stderr()).toBeDefined();
      const clients = await eventually(
        'openbox and xterm to start',
        async () => {
          const found = await desktopClients(xauthority);
          return found.length === 2 && found;
        },
        20_000,
      );
      // The reading ends of its stdout and stderr close: every later write fails with EPIPE,
      // as when the terminal or the process that started it went away.
      serve.child.stdout?.destroy();
      serve.child.stderr?.destroy();
      serve.child.kill(signal);
      await serve.exited;
      await eventually(
        'Xvnc to be stopped',
        async () => (await xvncFor(xauthority)) === undefined,
        10_000,
      );
      // They go with their sandbox's pid namespace, a moment after Xvnc.
      await eventually(
        'openbox and xterm to be gone',
        async () => (await stillRunning(clients)).length === 0,
        10_000,
      );
    },
  );

  it(
    'a local desktop that dies: /readyz says so within 2 s, and the desktop is back by itself',
    { timeout: 60_000 },
    async () => {
      const dataDir = join(dataRoot, 'dies');
      const serve = await serveLocal(dataDir);
      const url = /Open: +(http:\/\/\S+)/.exec(serve.stdout())?.[1] ?? '';
      const readyz = async () => (await fetch(new URL('readyz', url))).status;
      await eventually('/readyz to answer 200', async () => (await readyz()) === 200, 10_000);
      const { xauthority } = desktopLine(serve.stdout());
      const xvnc = await xvncProcess(xauthority);
      expect(xvnc, serve.stderr()).toBeDefined();
      const xvncPid = xvnc?.pid ?? 0;
      const killedAt = Date.now();
      process.kill(xvncPid, 'SIGKILL');
      await eventually('/readyz to answer 503', async () => (await readyz()) === 503, 2_000);
      expect(Date.now() - killedAt).toBeLessThan(2_000);
      // It says what is wrong, in words that name no path.
      const why = await (await fetch(new URL('readyz', url))).text();
      if (why !== 'ready') expect(why).toMatch(/local desktop does not answer/);
      // Back by itself: a new desktop, greeting on its new socket.
      await eventually('the desktop to be back', async () => (await readyz()) === 200, 20_000);
      serve.child.kill('SIGINT');
      await serve.exited;
    },
  );

  it(
    'gateway --listen 127.0.0.1:0 runs the gateway alone until SIGTERM',
    { timeout: 30_000 },
    async () => {
      const gateway = cli(['gateway', '--listen', '127.0.0.1:0']);
      await eventually(
        'the gateway',
        () => /listening on/.test(gateway.stdout()) || gateway.child.exitCode !== null,
        20_000,
      );
      const port = Number(/listening on 127\.0\.0\.1:(\d+)/.exec(gateway.stdout())?.[1]);
      expect(port, gateway.stderr()).toBeGreaterThan(0);
      expect(await canConnect(port)).toBe(true);
      gateway.child.kill('SIGTERM');
      expect(await gateway.exited).toEqual({ code: 0, signal: null });
      expect(await canConnect(port)).toBe(false);
    },
  );

  it('exits 2 with the problem and the usage on bad flags', { timeout: 30_000 }, async () => {
    const badPort = cli(['serve', '--port', 'eighty']);
    expect((await badPort.exited).code).toBe(2);
    expect(badPort.stderr()).toContain('--port expects a number');
    expect(badPort.stderr()).toContain('Usage: overlay-companion <command>');
    const twoSources = cli(['serve', '--desktop', 'local', '--vnc', '127.0.0.1:5901']);
    expect((await twoSources.exited).code).toBe(2);
    expect(twoSources.stderr()).toContain('Choose one desktop source');
  });
});
