// The lock put on a sandboxed desktop once Xvnc's sockets exist (lockSandbox, as root), attacked
// from its own xterm: the X socket and RFB dirs take no file and keep their sockets (the host's
// disk cannot be filled there, and no socket of the AI's can stand in for Xvnc's), and /tmp and
// /dev/shm stop at their number of files with "No space left on device" while the host's /tmp
// goes on; and a fork bomb stops at SANDBOX_MAX_TASKS. X clients inside and out, and RFB on its
// socket, still work afterwards.
import { execFile } from 'node:child_process';
import { chmod, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RfbClient } from '../rfb/index.js';
import { status, typeInXterm } from '../testing/sandboxShell.js';
import { startLocalDesktop, type LocalDesktop } from './localDesktop.js';
import {
  SANDBOX_MAX_TASKS,
  SANDBOX_RFB_DIR,
  SANDBOX_SHM_INODES,
  SANDBOX_TMP_INODES,
} from './sandbox.js';

/** Forks sleeping children until the kernel refuses (or a cap past the limit), then ends them. */
const FORK_BOMB = `import os, signal, time
children = []
error = ''
try:
    while len(children) < ${String(SANDBOX_MAX_TASKS + 64)}:
        pid = os.fork()
        if pid == 0:
            time.sleep(60)
            os._exit(0)
        children.append(pid)
except OSError as e:
    error = e.strerror
for pid in children:
    os.kill(pid, signal.SIGKILL)
    os.waitpid(pid, 0)
print('forked=%d' % len(children))
print('error=%s' % error)
`;

const run = promisify(execFile);
const isRoot = process.getuid?.() === 0;

describe.skipIf(!isRoot)('a locked sandbox, attacked from its own xterm', () => {
  let desktop: LocalDesktop;
  const home = (name: string): string => join(desktop.sandbox?.homeDir ?? '', name);

  beforeAll(async () => {
    desktop = await startLocalDesktop({ sandbox: true, xterm: true, windowManager: true });
  }, 60_000);
  afterAll(async () => {
    await desktop?.stop();
  });

  it('says it is locked', () => {
    expect(desktop.sandbox?.locked).toBe(true);
  });

  it('takes no file in its socket dirs and keeps Xvnc’s sockets there', async () => {
    const x11 = `/tmp/.X11-unix/X${desktop.display.slice(1)}`;
    const rfb = `${SANDBOX_RFB_DIR}/rfb.sock`;
    const steps = [
      'echo x > /tmp/.X11-unix/planted; echo x11file=$?',
      `echo x > ${SANDBOX_RFB_DIR}/planted; echo rfbfile=$?`,
      `mv ${rfb} ${rfb}.old; echo rfbmove=$?`,
      `rm -f ${x11}; echo x11rm=$?`,
      `chmod 0777 ${SANDBOX_RFB_DIR}; echo chmod=$?`,
      `python3 -c 'import socket; socket.socket(socket.AF_UNIX).bind("${SANDBOX_RFB_DIR}/fake.sock")'; echo bind=$?`,
      'xprop -root _NET_SUPPORTING_WM_CHECK >/dev/null; echo xinside=$?',
    ];
    await typeInXterm(desktop, `{ ${steps.join('; ')}; } > ~/sockets.txt 2>&1`, 'sockets.done');
    const report = await readFile(home('sockets.txt'), 'utf8');
    expect(status(report, 'xinside'), report).toBe('0'); // X clients inside still connect
    for (const step of ['x11file', 'rfbfile', 'rfbmove', 'x11rm', 'chmod', 'bind']) {
      expect(status(report, step), `${step}\n${report}`).not.toBe('0');
    }
    expect(report).toMatch(/Read-only file system/);
    expect(await readdir(dirname(desktop.rfbPath))).toEqual(['rfb.sock']);
    expect(await readdir(join(dirname(desktop.xauthority), 'x11'))).toEqual([
      `X${desktop.display.slice(1)}`,
    ]);
    // Outside, X clients and the gateway's RFB connection still reach the real Xvnc.
    const mouse = await run('xdotool', ['getmouselocation'], { env: desktop.env });
    expect(mouse.stdout).toMatch(/^x:\d+ y:\d+ /);
    const client = await RfbClient.connect({ path: desktop.rfbPath, password: desktop.password });
    expect(client.width).toBe(desktop.width);
    client.close();
  }, 60_000);

  it('stops /tmp and /dev/shm at their number of files; the host’s /tmp goes on', async () => {
    // A cap on each loop, so that without the limit the test fails instead of eating memory.
    const fill = (dir: string, limit: number, name: string): string =>
      `mkdir -p ${dir}/many; for ((i = 0; i < ${String(limit + 64)}; i++)); do : > ${dir}/many/$i || break; done; echo ${name}=$i`;
    const line = [
      fill('/tmp', SANDBOX_TMP_INODES, 'tmp'),
      fill('/dev/shm', SANDBOX_SHM_INODES, 'shm'),
    ];
    await typeInXterm(desktop, `{ ${line.join('; ')}; } > ~/files.txt 2>&1`, 'files.done');
    const report = await readFile(home('files.txt'), 'utf8');
    expect(report).toMatch(/No space left on device/);
    expect(Number(status(report, 'tmp'))).toBeLessThan(SANDBOX_TMP_INODES);
    expect(Number(status(report, 'tmp'))).toBeGreaterThan(SANDBOX_TMP_INODES - 64);
    expect(Number(status(report, 'shm'))).toBeLessThan(SANDBOX_SHM_INODES);
    expect(Number(status(report, 'shm'))).toBeGreaterThan(SANDBOX_SHM_INODES - 64);
    // The host's /tmp is another file system: it still takes files.
    const probe = join(tmpdir(), `oc-sandbox-lock-probe-${String(process.pid)}`);
    await writeFile(probe, 'x');
    await rm(probe);
    // The desktop is still usable: a typed line still runs and writes to HOME.
    await typeInXterm(desktop, 'rm -rf /tmp/many /dev/shm/many', 'cleaned.done');
  }, 90_000);

  it('stops a fork bomb at its number of tasks; the desktop goes on', async () => {
    await writeFile(home('bomb.py'), FORK_BOMB);
    await chmod(home('bomb.py'), 0o644);
    await typeInXterm(desktop, 'python3 ~/bomb.py > ~/bomb.txt 2>&1', 'bomb.done');
    const report = await readFile(home('bomb.txt'), 'utf8');
    expect(status(report, 'error'), report).toBe('Resource temporarily unavailable');
    // Xvnc, openbox, the xterm and its shells count too.
    expect(Number(status(report, 'forked'))).toBeLessThan(SANDBOX_MAX_TASKS);
    expect(Number(status(report, 'forked'))).toBeGreaterThan(SANDBOX_MAX_TASKS - 64);
    await typeInXterm(desktop, 'echo still here > ~/after.txt', 'after.done');
    expect(await readFile(home('after.txt'), 'utf8')).toBe('still here\n');
  }, 90_000);
});
