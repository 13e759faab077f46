// A real Apache guacd for tests. Found through OC_GUACD (a path), else `guacd` on PATH, else
// /opt/guacd-1.6.0/sbin/guacd (where ../shared/vendor/build-guacd.sh installs it); started in
// the foreground on a free loopback port and stopped (by its pid) at stop(). When none is
// found, a skip reason — which tests turn into a failure when OC_REQUIRE_GUACD=1 (CI, whose
// `.ci/run` builds guacd and installs xrdp first).
import { spawn } from 'node:child_process';
import { accessSync, constants, existsSync } from 'node:fs';
import { connect } from 'node:net';
import { delimiter, dirname, join } from 'node:path';
import { freePort } from '@overlay-companion/gateway';
import { keepChildOutput } from './testLogs.js';

/** Where build-guacd.sh puts guacd by default. */
const BUILT_GUACD = '/opt/guacd-1.6.0/sbin/guacd';
const START_TIMEOUT_MS = 10_000;

export interface TestGuacd {
  host: string;
  port: number;
  /** The binary that runs. */
  path: string;
  stop(): Promise<void>;
}

/** True when a missing guacd or xrdp must fail the tests rather than skip them (CI sets it). */
export function guacdRequired(): boolean {
  return process.env.OC_REQUIRE_GUACD === '1';
}

/**
 * For a test that cannot run: fails it under OC_REQUIRE_GUACD=1, else prints the reason and
 * returns it for `ctx.skip(reason)` / `test.skip(true, reason)`.
 */
export function skipOrFail(what: string, reason: string): string {
  if (guacdRequired()) throw new Error(`${what} is required here (OC_REQUIRE_GUACD=1): ${reason}`);
  console.warn(`[testing] ${what} tests skipped: ${reason}`);
  return reason;
}

/** The guacd binary to run, or why there is none. */
export function findGuacd(): { path: string } | { skip: string } {
  const fromEnv = process.env.OC_GUACD?.trim();
  if (fromEnv) {
    return executable(fromEnv)
      ? { path: fromEnv }
      : { skip: `OC_GUACD=${fromEnv} is not an executable file.` };
  }
  for (const dir of (process.env.PATH ?? '').split(delimiter)) {
    const candidate = join(dir, 'guacd');
    if (dir !== '' && executable(candidate)) return { path: candidate };
  }
  if (executable(BUILT_GUACD)) return { path: BUILT_GUACD };
  return {
    skip: `no guacd found (OC_GUACD unset, none on PATH, none at ${BUILT_GUACD}). Build it with ../shared/vendor/build-guacd.sh, or point OC_GUACD at one.`,
  };
}

/** `args`: more of guacd's flags (e.g. `-C cert -K key` for TLS). */
export async function startTestGuacd(
  args: readonly string[] = [],
): Promise<TestGuacd | { skip: string }> {
  const found = findGuacd();
  if ('skip' in found) return found;
  const host = '127.0.0.1';
  const port = await freePort(host);
  // A guacd built into a prefix finds its protocol plugins (libguac-client-*.so) in PREFIX/lib.
  const lib = join(dirname(dirname(found.path)), 'lib');
  const libraryPath = [existsSync(lib) ? lib : undefined, process.env.LD_LIBRARY_PATH]
    .filter((p): p is string => p !== undefined && p !== '')
    .join(delimiter);
  const child = spawn(found.path, ['-f', '-b', host, '-l', String(port), '-L', 'info', ...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, LD_LIBRARY_PATH: libraryPath },
  });
  keepChildOutput('guacd', child);
  let output = '';
  const keep = (chunk: Buffer) => (output = (output + chunk.toString()).slice(-4000));
  child.stdout.on('data', keep);
  child.stderr.on('data', keep);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const stop = async (): Promise<void> => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
    await exited;
    clearTimeout(timer);
  };
  const deadline = Date.now() + START_TIMEOUT_MS;
  while (!(await answers(host, port))) {
    if (child.exitCode !== null || Date.now() > deadline) {
      await stop();
      throw new Error(`guacd (${found.path}) did not listen on ${host}:${port}:\n${output}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return { host, port, path: found.path, stop };
}

function executable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
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
