// A real Apache guacd for the recording tests: found through OC_GUACD, else `guacd` on PATH,
// else /opt/guacd-1.6.0/sbin/guacd (where ../shared/vendor/build-guacd.sh installs it), started
// in the foreground on a free loopback port and stopped by its pid.
import { spawn } from 'node:child_process';
import { accessSync, constants, existsSync } from 'node:fs';
import { connect } from 'node:net';
import { delimiter, dirname, join } from 'node:path';
import { freePort } from '@overlay-companion/gateway';

const BUILT_GUACD = '/opt/guacd-1.6.0/sbin/guacd';

export interface TestGuacd {
  host: string;
  port: number;
  stop(): Promise<void>;
}

function executable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** The guacd binary, or why there is none. */
export function findGuacd(): { path?: string; skip?: string } {
  const fromEnv = process.env.OC_GUACD?.trim();
  if (fromEnv)
    return executable(fromEnv)
      ? { path: fromEnv }
      : { skip: `OC_GUACD=${fromEnv} is not executable` };
  for (const dir of (process.env.PATH ?? '').split(delimiter)) {
    if (dir !== '' && executable(join(dir, 'guacd'))) return { path: join(dir, 'guacd') };
  }
  if (executable(BUILT_GUACD)) return { path: BUILT_GUACD };
  return {
    skip: `no guacd (OC_GUACD, PATH, ${BUILT_GUACD}); build it with ../shared/vendor/build-guacd.sh`,
  };
}

export async function startGuacd(): Promise<TestGuacd> {
  const { path, skip } = findGuacd();
  if (path === undefined) throw new Error(skip);
  const host = '127.0.0.1';
  const port = await freePort(host);
  const lib = join(dirname(dirname(path)), 'lib');
  const child = spawn(path, ['-f', '-b', host, '-l', String(port), '-L', 'warning'], {
    stdio: ['ignore', 'ignore', 'pipe'],
    env: {
      ...process.env,
      LD_LIBRARY_PATH: [existsSync(lib) ? lib : '', process.env.LD_LIBRARY_PATH ?? '']
        .filter((p) => p !== '')
        .join(delimiter),
    },
  });
  let output = '';
  child.stderr.on('data', (chunk: Buffer) => (output = (output + chunk.toString()).slice(-4000)));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const stop = async (): Promise<void> => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
    await exited;
    clearTimeout(timer);
  };
  const deadline = Date.now() + 10_000;
  while (!(await answers(host, port))) {
    if (child.exitCode !== null || Date.now() > deadline) {
      await stop();
      throw new Error(`guacd (${path}) did not listen on ${host}:${port}:\n${output}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return { host, port, stop };
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
