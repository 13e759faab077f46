// What the desktop's user can write inside the sandbox when the bridge does not run as root (the
// real bwrap, in a user namespace, run here as an unprivileged uid): bwrap's own mounts (/ with
// /run and /home in it, and /dev) then belong to that user, so the sandbox remounts them
// read-only; /tmp and /dev/shm take writes up to their sizes and refuse the rest with ENOSPC.
// (As root the same mounts are root's, and localDesktop/sandbox tests cover that path.)
import { spawn } from 'node:child_process';
import { chmod, chown, mkdir, mkdtemp, open, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { SANDBOX_SHM_BYTES, SANDBOX_TMP_BYTES, sandboxArgv } from './sandbox.js';

const isRoot = process.getuid?.() === 0;
/** An unprivileged uid to run bwrap as (nobody). */
const NOBODY = 65534;
const MiB = 1024 * 1024;

let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'oc-sandbox-mounts-'));
  await chmod(dir, 0o755);
  for (const name of ['home', 'x11', 'rfb']) {
    await mkdir(join(dir, name));
    await chown(join(dir, name), NOBODY, NOBODY);
  }
  await writeFile(join(dir, 'Xauthority'), 'cookie');
  await chmod(join(dir, 'Xauthority'), 0o644);
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** Runs `script` in the sandbox as NOBODY (bwrap in its own user namespace); its stdout. */
async function inSandbox(script: string): Promise<string> {
  const cookie = await open(join(dir, 'Xauthority'), 'r');
  try {
    const argv = sandboxArgv({
      homeDir: join(dir, 'home'),
      x11Dir: join(dir, 'x11'),
      rfbDir: join(dir, 'rfb'),
      display: ':99',
      xauthorityFd: 3,
      readOnlyDirs: ['/usr', '/etc'],
      command: ['/bin/sh', '-c', script],
    });
    const child = spawn(
      'setpriv',
      [
        `--reuid=${String(NOBODY)}`,
        `--regid=${String(NOBODY)}`,
        '--clear-groups',
        'bwrap',
        ...argv,
      ],
      { stdio: ['ignore', 'pipe', 'pipe', cookie.fd] },
    );
    let out = '';
    let err = '';
    child.stdout?.on('data', (chunk: Buffer) => (out += chunk.toString()));
    child.stderr?.on('data', (chunk: Buffer) => (err += chunk.toString()));
    const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
    expect(code, err).toBe(0);
    return out;
  } finally {
    await cookie.close();
  }
}

it.skipIf(!isRoot)(
  'without root: /, /run, /home and /dev take no file; /tmp and /dev/shm stop at their sizes',
  async () => {
    const dirs = ['/', '/run', '/run/desktop', '/home', '/dev', '/tmp', '/dev/shm'];
    const writable = await inSandbox(
      `for d in ${dirs.join(' ')}; do (echo x > $d/oc-probe) 2>/dev/null && echo $d; done; true`,
    );
    expect(writable.trim().split('\n')).toEqual(['/tmp', '/dev/shm']);
    for (const [path, bytes] of [
      ['/tmp/big', SANDBOX_TMP_BYTES],
      ['/dev/shm/big', SANDBOX_SHM_BYTES],
    ] as const) {
      const report = await inSandbox(
        `dd if=/dev/zero of=${path} bs=1M count=${String(bytes / MiB + 16)} 2>&1; echo dd=$?; stat -c size=%s ${path}`,
      );
      expect(report).toMatch(/No space left on device/);
      expect(report).toMatch(/^dd=1$/m);
      expect(Number(/^size=(\d+)$/m.exec(report)?.[1])).toBeLessThanOrEqual(bytes);
    }
  },
  60_000,
);
