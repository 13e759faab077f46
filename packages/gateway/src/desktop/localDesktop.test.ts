// startLocalDesktop against the real Xvnc: the desktop reaches nobody but its creator — no TCP
// listener, the RFB socket 0600 in a 0700 dir with VNC authentication, an X display that
// refuses clients without its cookie — and a desktop that fails to come up leaves nothing
// behind (no Xvnc, no work dir with its password file).
import { execFile } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { RfbClient } from '../rfb/index.js';
import { tcpListenersOf, unixListenersOf } from '../testing/listeners.js';
import { LocalDesktopError, startLocalDesktop, type LocalDesktop } from './localDesktop.js';

const run = promisify(execFile);
const mode = async (path: string): Promise<number> => (await stat(path)).mode & 0o777;

describe('startLocalDesktop', () => {
  let scratch: string;
  let savedTmp: string | undefined;
  beforeEach(async () => {
    // The work dir goes to os.tmpdir(), which follows TMPDIR: give it a dir of its own to watch.
    scratch = await mkdtemp(join(tmpdir(), 'oc-desktop-test-'));
    savedTmp = process.env.TMPDIR;
    process.env.TMPDIR = scratch;
  });
  afterEach(async () => {
    if (savedTmp === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = savedTmp;
    await rm(scratch, { recursive: true, force: true });
  });

  it('removes its work dir and password file when Xvnc does not come up', async () => {
    const start = startLocalDesktop({
      password: 'secret12',
      windowManager: false,
      extraArgs: ['-no-such-option'],
    });
    await expect(start).rejects.toBeInstanceOf(LocalDesktopError);
    await expect(start).rejects.toThrow(/Xvnc exited with code/);
    expect(await readdir(scratch)).toEqual([]);
  });

  it('removes its work dir, socket and cookie when stopped', async () => {
    const desktop = await startLocalDesktop({ windowManager: false });
    expect(await readdir(scratch)).toHaveLength(1);
    await desktop.stop();
    expect(await readdir(scratch)).toEqual([]);
  });
});

describe('a local desktop reaches nobody but its creator', () => {
  const PASSWORD = 'k33p0ut!';
  let desktop: LocalDesktop;
  let scratch: string;

  beforeAll(async () => {
    scratch = await mkdtemp(join(tmpdir(), 'oc-desktop-test-'));
    desktop = await startLocalDesktop({ windowManager: false, password: PASSWORD });
  });
  afterAll(async () => {
    await desktop?.stop();
    await rm(scratch, { recursive: true, force: true });
  });

  it('has no TCP listener at all, only its RFB socket and its X display sockets', async () => {
    expect(await tcpListenersOf(desktop.pid)).toEqual([]);
    const display = desktop.display.slice(1);
    expect((await unixListenersOf(desktop.pid)).sort()).toEqual(
      [desktop.rfbPath, `/tmp/.X11-unix/X${display}`, `@/tmp/.X11-unix/X${display}`].sort(),
    );
    expect(desktop.host).toBeUndefined();
    expect(desktop.port).toBeUndefined();
  });

  it('keeps its RFB socket (0600), cookie and password (0600) in a 0700 dir', async () => {
    const workDir = dirname(desktop.rfbPath);
    expect(dirname(desktop.xauthority)).toBe(workDir);
    expect(await mode(workDir)).toBe(0o700);
    expect((await stat(desktop.rfbPath)).isSocket()).toBe(true);
    expect(await mode(desktop.rfbPath)).toBe(0o600);
    expect(await mode(desktop.xauthority)).toBe(0o600);
    expect(await mode(join(workDir, 'passwd'))).toBe(0o600);
  });

  it('still asks for the VNC password on its socket', async () => {
    await expect(RfbClient.connect({ path: desktop.rfbPath })).rejects.toThrow(
      /requires a password/,
    );
    const client = await RfbClient.connect({ path: desktop.rfbPath, password: PASSWORD });
    expect(client.width).toBe(desktop.width);
    client.close();
  });

  it('lets in X clients with its cookie and refuses those without', async () => {
    expect(desktop.env.XAUTHORITY).toBe(desktop.xauthority);
    const ok = await run('xdotool', ['getmouselocation'], { env: desktop.env });
    expect(ok.stdout).toMatch(/^x:\d+ y:\d+ /);

    // Same user, same display, no cookie: an empty authority file, and none at all.
    const empty = join(scratch, 'empty-xauthority');
    for (const XAUTHORITY of [empty, join(scratch, 'missing')]) {
      const refused = await run('xdotool', ['getmouselocation'], {
        env: { ...desktop.env, XAUTHORITY },
      }).then(
        () => 'connected',
        (error: { stderr?: string }) => error.stderr ?? '',
      );
      expect(refused).toMatch(/Authorization required|Can't open display/);
    }
  });

  it('keeps its cookie off every command line (readable by any local user)', async () => {
    const cookie = (await run('xauth', ['-f', desktop.xauthority, 'list'])).stdout
      .trim()
      .split(/\s+/)
      .at(-1);
    expect(cookie).toMatch(/^[0-9a-f]{32}$/);
    const cmdline = await readFile(`/proc/${String(desktop.pid)}/cmdline`, 'utf8');
    expect(cmdline).toContain(desktop.xauthority);
    expect(cmdline).not.toContain(cookie);
    expect(cmdline).not.toContain(PASSWORD);
  });
});

describe('a local desktop with rfbTcp', () => {
  it('listens on its loopback TCP port as well (the check above can fail)', async () => {
    const desktop = await startLocalDesktop({ windowManager: false, rfbTcp: true });
    try {
      const listeners = await tcpListenersOf(desktop.pid);
      // 127.0.0.1 and ::1 as /proc/net/tcp{,6} print them (little-endian hex words).
      expect(listeners.sort((p, q) => p.protocol.localeCompare(q.protocol))).toEqual([
        { protocol: 'tcp', address: '0100007F', port: desktop.port },
        { protocol: 'tcp6', address: '00000000000000000000000001000000', port: desktop.port },
      ]);
      const client = await RfbClient.connect({ host: desktop.host, port: desktop.port });
      client.close();
    } finally {
      await desktop.stop();
    }
  });
});
