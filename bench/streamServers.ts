// The two guacd-compatible servers the streaming bench compares, each as its own process on a
// free loopback port so the bridge reaches both the same way (`serve --guacd … --vnc …`) and
// each one's CPU is its own: our gateway (`overlay-companion gateway`, the built CLI, with its
// worker threads inside the one process) and Apache guacd 1.6.0 (which forks one child per
// connection; its CPU is the whole process tree's). guacd comes from OC_GUACD or the project's
// build script, which returns at once when guacd is already installed (found the way the tests
// find it: apps/bridge/src/testing/guacd.ts).
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { connect } from 'node:net';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { freePort } from '@overlay-companion/gateway';
import { BRIDGE_MAIN, REPO_ROOT } from '../e2e/support/bridgeProcess.js';
import { findGuacd as findTestGuacd } from '../apps/bridge/src/testing/guacd.js';

const run = promisify(execFile);

export type ServerKind = 'ours' | 'guacd';

export interface GuacServer {
  kind: ServerKind;
  port: number;
  /** The process whose tree's CPU counts as this server's. */
  pid: number;
  stop(): Promise<void>;
}

const BUILD_SCRIPT = join(REPO_ROOT, '..', 'shared', 'vendor', 'build-guacd.sh');

/**
 * Where guacd is, or why the comparison cannot run: where the tests find it (OC_GUACD, PATH,
 * the build script's prefix), else built with the project's script (about 35 s, once).
 */
export async function findGuacd(): Promise<{ path: string } | { missing: string }> {
  const found = findTestGuacd();
  if ('path' in found) return found;
  if (process.env.OC_GUACD?.trim()) return { missing: found.skip };
  if (!existsSync(BUILD_SCRIPT)) {
    return { missing: `${found.skip} No build script at ${BUILD_SCRIPT} either.` };
  }
  try {
    // Prints the guacd path last.
    const { stdout } = await run('bash', [BUILD_SCRIPT], { timeout: 15 * 60_000 });
    const path = stdout.trim().split('\n').at(-1) ?? '';
    return existsSync(path) ? { path } : { missing: `${BUILD_SCRIPT} printed no guacd path` };
  } catch (err) {
    const message = err instanceof Error ? err.message.split('\n')[0] : String(err);
    return { missing: `${BUILD_SCRIPT} failed: ${message}` };
  }
}

export async function startServer(kind: ServerKind, guacdPath?: string): Promise<GuacServer> {
  const port = await freePort();
  let child: ChildProcess;
  if (kind === 'ours') {
    // OC_BENCH_GATEWAY_PROFILE=<dir>: the gateway writes V8 CPU profiles of its main thread and
    // encode workers there when it stops (NODE_OPTIONS refuses --cpu-prof).
    const profileDir = process.env.OC_BENCH_GATEWAY_PROFILE?.trim();
    const profile = profileDir ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`] : [];
    child = spawn(
      process.execPath,
      [...profile, BRIDGE_MAIN, 'gateway', '--listen', `127.0.0.1:${String(port)}`],
      {
        cwd: REPO_ROOT,
        stdio: ['ignore', 'ignore', 'pipe'],
        env: { ...process.env, OC_LOG_LEVEL: 'error', NO_COLOR: '1' },
      },
    );
  } else {
    if (guacdPath === undefined) throw new Error('startServer(guacd) needs the guacd path');
    const prefix = dirname(dirname(guacdPath));
    child = spawn(guacdPath, ['-f', '-b', '127.0.0.1', '-l', String(port), '-L', 'error'], {
      stdio: ['ignore', 'ignore', 'pipe'],
      env: { ...process.env, LD_LIBRARY_PATH: join(prefix, 'lib') },
    });
  }
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr = (stderr + chunk.toString()).slice(-4000);
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 3000);
      await exited;
      clearTimeout(timer);
    }
  };
  try {
    await waitForPort(
      port,
      () => child.exitCode !== null,
      () => stderr,
    );
  } catch (err) {
    await stop();
    throw err;
  }
  return { kind, port, pid: child.pid ?? -1, stop };
}

async function waitForPort(
  port: number,
  gone: () => boolean,
  output: () => string,
  timeoutMs = 15_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (gone()) throw new Error(`The server exited before it listened:\n${output()}`);
    const open = await new Promise<boolean>((resolve) => {
      const socket = connect({ host: '127.0.0.1', port });
      socket.once('connect', () => {
        socket.destroy();
        resolve(true);
      });
      socket.once('error', () => resolve(false));
    });
    if (open) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`The server never listened on 127.0.0.1:${String(port)}:\n${output()}`);
}
