// Test support: the `overlay-companion` command as a real child process. It runs the built CLI
// (apps/bridge/dist/cli/main.js) when that build is newer than every source file it comes from,
// and the same code from source through tsx otherwise, so a test never runs a stale build
// (`npm test` builds first, so there it is always the built CLI).
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { keepChildOutput, registerSecret } from '../../testing/testLogs.js';

export const REPO = fileURLToPath(new URL('../../../../../', import.meta.url));
const BUILT_MAIN = join(REPO, 'apps/bridge/dist/cli/main.js');
const SOURCE_MAIN = join(REPO, 'apps/bridge/src/cli/main.ts');
const BUILD_INFO = join(REPO, 'apps/bridge/dist/.tsbuildinfo');
const SOURCE_DIRS = [
  'apps/bridge/src',
  'packages/protocol/src',
  'packages/gateway/src',
  'packages/guac/src',
];

function newestMtime(dir: string): number {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) newest = Math.max(newest, newestMtime(path));
    else if (entry.name.endsWith('.ts')) newest = Math.max(newest, statSync(path).mtimeMs);
  }
  return newest;
}

let chosen: { argv: string[]; built: boolean } | undefined;

/** node arguments that start the CLI, and whether that is the built one. */
export function cliEntry(): { argv: string[]; built: boolean } {
  if (chosen !== undefined) return chosen;
  const fresh =
    existsSync(BUILT_MAIN) &&
    existsSync(BUILD_INFO) &&
    SOURCE_DIRS.every((d) => newestMtime(join(REPO, d)) <= statSync(BUILD_INFO).mtimeMs);
  chosen = fresh
    ? { argv: [BUILT_MAIN], built: true }
    : { argv: ['--import', 'tsx', '--conditions=overlay-source', SOURCE_MAIN], built: false };
  return chosen;
}

export interface CliProcess {
  child: ChildProcess;
  stdout(): string;
  stderr(): string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** Resolves with the first match of `pattern` in stdout. */
  waitForStdout(pattern: RegExp, timeoutMs?: number): Promise<RegExpMatchArray>;
  /** Sends `signal` (SIGINT by default) and waits for the exit. */
  stop(signal?: NodeJS.Signals): Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /**
   * For cleanup after a failure: SIGINT, so serve stops the desktop and Chromium it started
   * (SIGKILL would leave its Xvnc behind), then SIGKILL if it has not exited within `graceMs`.
   */
  shutdown(graceMs?: number): Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

export function spawnCli(args: readonly string[], env: NodeJS.ProcessEnv = {}): CliProcess {
  const child = spawn(process.execPath, [...cliEntry().argv, ...args], {
    cwd: REPO,
    env: { ...process.env, OC_LOG_LEVEL: 'warn', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  // Kept for the run's log scan, with the secrets the test handed in.
  keepChildOutput(`cli-${args[0] ?? 'help'}`, child);
  registerSecret(
    ...['OC_ADMIN_PASSWORD', 'OC_MCP_TOKEN', 'OC_VNC_PASSWORD', 'OC_RDP_PASSWORD']
      .map((name) => env[name])
      .filter((value): value is string => value !== undefined),
  );
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal })),
  );
  let done = false;
  void exited.then(() => (done = true));
  return {
    child,
    stdout: () => stdout,
    stderr: () => stderr,
    exited,
    waitForStdout: (pattern, timeoutMs = 30_000) =>
      new Promise((resolve, reject) => {
        const started = Date.now();
        const poll = (): void => {
          const match = pattern.exec(stdout);
          if (match !== null) return resolve(match);
          if (done || Date.now() - started > timeoutMs) {
            return reject(
              new Error(
                `CLI output never matched ${String(pattern)}${done ? ' (it exited)' : ''}.\nstdout: ${stdout}\nstderr: ${stderr}`,
              ),
            );
          }
          setTimeout(poll, 50);
        };
        poll();
      }),
    stop: async (signal = 'SIGINT') => {
      if (!done) child.kill(signal);
      return exited;
    },
    shutdown: async (graceMs = 15_000) => {
      if (done) return exited;
      child.kill('SIGINT');
      const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
      const exit = await exited;
      clearTimeout(timer);
      return exit;
    },
  };
}

/**
 * The environment of a scripted serve: the admin (OC_ADMIN_USER / OC_ADMIN_PASSWORD) and a token
 * that acts for them (OC_MCP_TOKEN), random per call, for tests that drive serve over MCP.
 */
export function scriptedServeEnv(): {
  env: NodeJS.ProcessEnv;
  username: string;
  password: string;
  token: string;
} {
  const username = 'admin';
  const password = `pw-${randomBytes(12).toString('base64url')}`;
  const token = `env-${randomBytes(24).toString('base64url')}`;
  return {
    env: { OC_ADMIN_USER: username, OC_ADMIN_PASSWORD: password, OC_MCP_TOKEN: token },
    username,
    password,
    token,
  };
}

/** The display and X cookie file `serve --desktop local` printed (X clients need both). */
export function printedDesktop(stdout: string): { display: string; xEnv: NodeJS.ProcessEnv } {
  const match = /local desktop on display (:\d+) \(XAUTHORITY=([^;\s]+);/.exec(stdout);
  const display = match?.[1] ?? '';
  return { display, xEnv: { ...process.env, DISPLAY: display, XAUTHORITY: match?.[2] ?? '' } };
}

/** Starts `serve` with `args` and resolves once it printed its URLs. */
export async function startServe(
  args: readonly string[],
  env: NodeJS.ProcessEnv = {},
): Promise<{ cli: CliProcess; url: string; mcpUrl: string }> {
  const cli = spawnCli(['serve', ...args], env);
  try {
    const open = await cli.waitForStdout(/Open:\s+(http:\/\/\S+)/, 60_000);
    const mcp = await cli.waitForStdout(/MCP endpoint: (http:\/\/\S+)/, 10_000);
    await cli.waitForStdout(/Press Ctrl-C to stop\./, 10_000);
    return { cli, url: open[1] ?? '', mcpUrl: mcp[1] ?? '' };
  } catch (err) {
    await cli.shutdown();
    throw err;
  }
}
