// Sandboxed local desktops against the real bwrap and Xvnc: a shell line typed into the xterm
// (what an AI can do) reaches none of the bridge's secrets, files, processes or loopback port,
// nor another desktop; the desktop still works from outside (X clients with its env, RFB on
// its socket); stop() and a failed start leave nothing behind. Plus the bwrap argv itself.
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import { createServer as createNetServer } from 'node:net';
import { lstat, mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { homedir, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RfbClient } from '../rfb/index.js';
import { status, typeInXterm } from '../testing/sandboxShell.js';
import { LocalDesktopError, startLocalDesktop, type LocalDesktop } from './localDesktop.js';
import { sandboxArgv, SANDBOX_HOME, SANDBOX_XAUTHORITY } from './sandbox.js';

const run = promisify(execFile);

/** Whether we could bind the abstract socket `name` (closed again at once). */
const canBind = (name: string): Promise<boolean> =>
  new Promise((resolve) => {
    const server = createNetServer();
    server.once('error', () => resolve(false));
    server.listen(name, () => server.close(() => resolve(true)));
  });
const isRoot = process.getuid?.() === 0;
const exists = (path: string): Promise<boolean> =>
  lstat(path).then(
    () => true,
    () => false,
  );

describe('a sandboxed desktop, attacked from its own xterm', () => {
  const secrets = {
    OC_ADMIN_PASSWORD: `admin-${randomBytes(8).toString('hex')}`,
    OC_MCP_TOKEN: `token-${randomBytes(8).toString('hex')}`,
  };
  const saved: Record<string, string | undefined> = {};
  let scratch: string;
  let dataDir: string;
  let distFile: string;
  const distText = 'console.log("bridge");\n';
  let server: Server;
  let port: number;
  const requests: string[] = [];
  let desktop: LocalDesktop;
  let startMs: number;

  beforeAll(async () => {
    for (const [name, value] of Object.entries(secrets)) {
      saved[name] = process.env[name];
      process.env[name] = value;
    }
    // Not only under /tmp (the sandbox has its own): a data dir in the bridge's home, as usual.
    scratch = await mkdtemp(join(tmpdir(), 'oc-sandbox-test-'));
    dataDir = await mkdtemp(join(homedir(), '.oc-sandbox-test-data-'));
    distFile = join(scratch, 'bridge.js');
    await writeFile(join(dataDir, 'bridge.sqlite'), 'the bridge data');
    await writeFile(distFile, distText);
    server = createServer((req, res) => {
      requests.push(`${req.method ?? ''} ${req.url ?? ''}`);
      res.end('ok');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const address = server.address();
    port = typeof address === 'object' && address !== null ? address.port : 0;

    const started = Date.now();
    desktop = await startLocalDesktop({ sandbox: true, xterm: true, windowManager: true });
    startMs = Date.now() - started;
  }, 60_000);
  afterAll(async () => {
    await desktop?.stop();
    await new Promise((resolve) => server?.close(resolve));
    for (const [name, value] of Object.entries(saved)) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
    await rm(scratch, { recursive: true, force: true });
    await rm(dataDir, { recursive: true, force: true });
  });

  it('starts quickly', () => {
    console.info(
      `sandboxed desktop with window manager and xterm started in ${String(startMs)} ms`,
    );
    expect(startMs).toBeLessThan(10_000);
  });

  it('keeps the bridge’s environment, /proc, data dir, code and loopback port out of reach', async () => {
    const pid = String(process.pid);
    // The HTTP server must be reachable from here, or "received nothing" would prove nothing.
    const probe = await fetch(`http://127.0.0.1:${String(port)}/probe`);
    expect(await probe.text()).toBe('ok');
    requests.length = 0;

    const steps = [
      'env; echo env=$?',
      `cat /proc/${pid}/environ; echo proc=$?`,
      `test -e /proc/${pid}; echo procpid=$?`,
      'echo procs=$(ls /proc | grep -c "^[0-9]")',
      `ls ${dataDir}; echo ls=$?`,
      `ls ${process.cwd()}; echo repo=$?`,
      `curl -s -m 3 http://127.0.0.1:${String(port)}/api/auth/signin -d user=admin; echo curl=$?`,
      `echo x >> ${distFile}; echo dist=$?`,
      `kill -0 ${pid}; echo kill=$?`,
      'echo uid=$(id -u)',
    ];
    await typeInXterm(desktop, `{ ${steps.join('; ')}; } > ~/report.txt 2>&1`, 'attack.done');
    const report = await readFile(join(desktop.sandbox?.homeDir ?? '', 'report.txt'), 'utf8');

    expect(status(report, 'env')).toBe('0'); // the report is real: env ran
    expect(report).toContain(`HOME=${SANDBOX_HOME}`);
    for (const value of Object.values(secrets)) expect(report).not.toContain(value);
    expect(report).not.toContain('OC_');
    expect(status(report, 'proc')).not.toBe('0');
    // Its own pid namespace: the bridge is not even there, and only the sandbox's few are.
    expect(status(report, 'procpid')).toBe('1');
    expect(Number(status(report, 'procs'))).toBeLessThan(15);
    expect(status(report, 'ls')).not.toBe('0');
    expect(report).not.toContain('bridge.sqlite');
    expect(status(report, 'repo')).not.toBe('0');
    expect(status(report, 'curl')).not.toBe('0');
    expect(requests).toEqual([]);
    expect(status(report, 'dist')).not.toBe('0');
    expect(await readFile(distFile, 'utf8')).toBe(distText);
    expect(status(report, 'kill')).not.toBe('0');
    const uid = status(report, 'uid');
    expect(uid).toMatch(/^\d+$/);
    if (isRoot) expect(uid).not.toBe('0');
    expect(Number(uid)).toBe(desktop.sandbox?.uid);
  }, 60_000);

  it('still serves X clients outside with its env, and RFB on its socket', async () => {
    const mouse = await run('xdotool', ['getmouselocation'], { env: desktop.env });
    expect(mouse.stdout).toMatch(/^x:\d+ y:\d+ /);
    const xwd = await run('xwd', ['-root', '-silent'], {
      env: desktop.env,
      encoding: 'buffer',
      maxBuffer: 64 * 1024 * 1024,
    });
    expect(xwd.stdout.length).toBeGreaterThan(desktop.width * desktop.height);
    const xprop = await run('xprop', ['-root', '_NET_SUPPORTING_WM_CHECK'], { env: desktop.env });
    expect(xprop.stdout).toContain('window id'); // openbox runs, inside the sandbox

    // The RFB socket: 0600 in a 0700 dir, a real handshake and the desktop's size.
    expect((await stat(desktop.rfbPath)).isSocket()).toBe(true);
    expect((await stat(desktop.rfbPath)).mode & 0o777).toBe(0o600);
    expect((await stat(dirname(dirname(desktop.rfbPath)))).mode & 0o777).toBe(0o700);
    const client = await RfbClient.connect({ path: desktop.rfbPath });
    expect(client.width).toBe(desktop.width);
    expect(client.height).toBe(desktop.height);
    client.close();
  });

  it('holds its abstract X socket name on the host, so nobody else can pose as the display', async () => {
    // Xvnc's own abstract socket is in the sandbox's network namespace; X clients here would
    // try the host's name first.
    expect(await canBind(`\0/tmp/.X11-unix/X${desktop.display.slice(1)}`)).toBe(false);
  });

  it('runs Xvnc, openbox and xterm as the sandbox user, never as root', async () => {
    const names = new Map<string, number>();
    const walk = async (pid: number): Promise<void> => {
      const comm = (await readFile(`/proc/${String(pid)}/comm`, 'utf8').catch(() => '')).trim();
      const uid = /^Uid:\s+(\d+)/m.exec(
        await readFile(`/proc/${String(pid)}/status`, 'utf8').catch(() => ''),
      )?.[1];
      if (uid !== undefined) names.set(comm, Number(uid));
      const children = await readFile(
        `/proc/${String(pid)}/task/${String(pid)}/children`,
        'utf8',
      ).catch(() => '');
      for (const child of children.split(' ').filter(Boolean)) await walk(Number(child));
    };
    await walk(desktop.sandbox?.bwrapPid ?? 0);
    for (const program of ['Xvnc', 'openbox', 'xterm', 'bash']) {
      expect(names.get(program), program).toBe(desktop.sandbox?.uid);
    }
    if (isRoot) expect(desktop.sandbox?.uid).not.toBe(0);
  });
});

describe('two sandboxed desktops', () => {
  let one: LocalDesktop;
  let two: LocalDesktop;
  beforeAll(async () => {
    [one, two] = await Promise.all([
      startLocalDesktop({ sandbox: true, xterm: true, windowManager: true }),
      startLocalDesktop({ sandbox: true, windowManager: false }),
    ]);
  }, 60_000);
  afterAll(async () => {
    await Promise.all([one?.stop(), two?.stop()]);
  });

  it('cannot see each other’s X socket, cookie, home or processes', async () => {
    const other = two.display.slice(1);
    const steps = [
      'ls -a /tmp/.X11-unix; echo x11=$?',
      `ls ${two.sandbox?.homeDir ?? ''}; echo home=$?`,
      `cat ${two.xauthority}; echo cookie=$?`,
      `ls ${dirname(two.rfbPath)}; echo rfb=$?`,
      `DISPLAY=:${other} xprop -root; echo xprop=$?`,
      'echo procs=$(ls /proc | grep -c "^[0-9]")',
      `cat ${SANDBOX_XAUTHORITY} | od -c | head -1; echo own=$?`,
    ];
    await typeInXterm(one, `{ ${steps.join('; ')}; } > ~/probe.txt 2>&1`, 'probe.done');
    const report = await readFile(join(one.sandbox?.homeDir ?? '', 'probe.txt'), 'utf8');
    expect(report).toContain(`X${one.display.slice(1)}`);
    expect(report).not.toContain(`X${other}\n`);
    expect(status(report, 'x11')).toBe('0');
    for (const step of ['home', 'cookie', 'rfb', 'xprop']) {
      expect(status(report, step), step).not.toBe('0');
    }
    // bwrap's init, the launcher, Xvnc, openbox, xterm, its bash, and the typed line's few.
    expect(Number(status(report, 'procs'))).toBeLessThan(15);
    expect(status(report, 'own')).toBe('0');
  }, 60_000);
});

describe('a sandboxed desktop’s start and stop', () => {
  it('leaves no process, display link, lock or work dir behind when stopped', async () => {
    const desktop = await startLocalDesktop({ sandbox: true, xterm: true });
    const n = desktop.display.slice(1);
    const link = `/tmp/.X11-unix/X${n}`;
    const workDir = dirname(desktop.xauthority);
    expect(await exists(link)).toBe(true);
    expect(await exists(`/tmp/.X${n}-lock`)).toBe(true);
    expect(desktop.pid).toBeGreaterThan(0);
    expect(await readFile(`/proc/${String(desktop.pid)}/comm`, 'utf8')).toBe('Xvnc\n');
    const bwrapPid = String(desktop.sandbox?.bwrapPid ?? 0);
    const init = await readFile(`/proc/${bwrapPid}/task/${bwrapPid}/children`, 'utf8');

    await desktop.stop();
    // Gone, not even zombies (the host's init here does not reap orphans).
    for (const pid of [String(desktop.pid), bwrapPid, ...init.split(' ').filter(Boolean)]) {
      const line = await readFile(`/proc/${pid}/stat`, 'utf8').catch(() => '');
      expect(line, `pid ${pid}`).toBe('');
    }
    expect(await exists(link)).toBe(false);
    expect(await exists(`/tmp/.X${n}-lock`)).toBe(false);
    expect(await exists(workDir)).toBe(false);
    expect(await canBind(`\0${link}`)).toBe(true);
  }, 30_000);

  it('leaves nothing behind when Xvnc does not come up', async () => {
    const links = async () => (await readdir('/tmp/.X11-unix')).sort();
    const before = await links();
    const start = startLocalDesktop({ sandbox: true, extraArgs: ['-no-such-option'] });
    await expect(start).rejects.toBeInstanceOf(LocalDesktopError);
    await expect(start).rejects.toThrow(/Xvnc exited with code/);
    // Other tests' desktops may come and go meanwhile: only ours must not be left.
    const after = await links();
    expect(after.filter((name) => !before.includes(name))).toEqual([]);
  }, 30_000);

  it('says to install bubblewrap when bwrap is missing', async () => {
    const path = process.env.PATH;
    process.env.PATH = '/nonexistent';
    try {
      await expect(startLocalDesktop({ sandbox: true })).rejects.toThrow(
        /apt-get install -y bubblewrap/,
      );
    } finally {
      process.env.PATH = path;
    }
  });

  it('never runs a desktop as root, whoever asks', async () => {
    await expect(
      startLocalDesktop({ sandbox: { user: { uid: 0, gid: 0 } }, windowManager: false }),
    ).rejects.toThrow(isRoot ? /never runs as root/ : /Only a bridge running as root/);
  });

  it('refuses rfbTcp (the sandbox has no network)', async () => {
    await expect(startLocalDesktop({ sandbox: true, rfbTcp: true })).rejects.toThrow(/no network/);
  });
});

describe('sandboxArgv', () => {
  const base = {
    homeDir: '/tmp/oc-desktop-x/home',
    x11Dir: '/tmp/oc-desktop-x/x11',
    rfbDir: '/tmp/oc-desktop-x/rfb',
    display: ':21',
    xauthorityFd: 4,
    readOnlyDirs: ['/usr', '/etc'],
    command: ['bash', '-c', 'true'],
  };
  const after = (argv: string[], flag: string): string[][] =>
    argv.flatMap((arg, i) => (arg === flag ? [argv.slice(i + 1, i + 3)] : []));

  it('isolates every namespace, clears the environment and binds only the desktop’s dirs', () => {
    const argv = sandboxArgv(base);
    expect(argv).toEqual(expect.arrayContaining(['--unshare-all', '--die-with-parent']));
    expect(argv).toEqual(expect.arrayContaining(['--new-session', '--clearenv']));
    expect(after(argv, '--setenv').map(([name]) => name)).toEqual([
      'HOME',
      'USER',
      'PATH',
      'LANG',
      'DISPLAY',
      'XAUTHORITY',
      'SHELL',
      'TERM',
    ]);
    expect(after(argv, '--setenv')).toContainEqual(['DISPLAY', ':21']);
    expect(after(argv, '--ro-bind')).toEqual([
      ['/usr', '/usr'],
      ['/etc', '/etc'],
    ]);
    expect(after(argv, '--bind')).toEqual([
      ['/tmp/oc-desktop-x/home', SANDBOX_HOME],
      ['/tmp/oc-desktop-x/x11', '/tmp/.X11-unix'],
      ['/tmp/oc-desktop-x/rfb', '/run/desktop/rfb'],
    ]);
    expect(after(argv, '--ro-bind-data')).toEqual([['4', SANDBOX_XAUTHORITY]]);
    expect(after(argv, '--proc')[0]?.[0]).toBe('/proc');
    expect(after(argv, '--tmpfs')[0]?.[0]).toBe('/tmp');
    expect(argv).not.toContain('setpriv');
    // The command comes last, after the separator.
    expect(argv.slice(argv.indexOf('--'))).toEqual(['--', 'bash', '-c', 'true']);
  });

  it('as root: no user namespace, and setpriv drops to the desktop user with nothing left', () => {
    const argv = sandboxArgv({
      ...base,
      passwordFd: 5,
      user: { name: 'oc-desktop', uid: 995, gid: 994 },
    });
    expect(argv).not.toContain('--unshare-all');
    expect(argv).not.toContain('--unshare-user');
    expect(argv).toEqual(
      expect.arrayContaining([
        '--unshare-pid',
        '--unshare-ipc',
        '--unshare-uts',
        '--unshare-cgroup',
        '--unshare-net',
      ]),
    );
    expect(after(argv, '--ro-bind-data')).toEqual([
      ['4', SANDBOX_XAUTHORITY],
      ['5', '/run/desktop/passwd'],
    ]);
    expect(after(argv, '--setenv')).toContainEqual(['USER', 'oc-desktop']);
    expect(argv).not.toContain('/etc/passwd'); // oc-desktop has the host's entry
    expect(argv.slice(argv.indexOf('--'))).toEqual([
      '--',
      'prlimit',
      '--nproc=1024:1024',
      '--',
      'setpriv',
      '--reuid=995',
      '--regid=994',
      '--clear-groups',
      '--inh-caps=-all',
      '--bounding-set=-all',
      '--no-new-privs',
      '--',
      'bash',
      '-c',
      'true',
    ]);
  });

  it('gives a uid of the desktop’s own a line in /etc/passwd and /etc/group, as copies', () => {
    const argv = sandboxArgv({
      ...base,
      accountFds: { passwd: 5, group: 6 },
      user: { name: 'desktop', uid: 1_900_000_001, gid: 1_900_000_001 },
    });
    expect(after(argv, '--ro-bind-data')).toEqual([
      ['4', SANDBOX_XAUTHORITY],
      ['5', '/etc/passwd'],
      ['6', '/etc/group'],
    ]);
    // Over the read-only /etc, so after it.
    expect(argv.indexOf('/etc/passwd')).toBeGreaterThan(argv.lastIndexOf('/etc'));
    expect(argv).toContain('--reuid=1900000001');
  });
});
