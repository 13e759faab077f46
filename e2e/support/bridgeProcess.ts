// Runs the real stack — `overlay-companion serve --desktop local` (bridge + embedded gateway +
// Xvnc desktop with an xterm) — as a child process for one test worker, scripted the way
// unattended setups are: OC_ADMIN_USER / OC_ADMIN_PASSWORD create the admin the tests sign in
// as, OC_MCP_TOKEN is the token MCP clients use (both random per stack; serve never prints
// them). Reads where it listens, which X display it started and its X cookie file (XAUTHORITY)
// from its console output, and stops it with SIGINT the way a person pressing Ctrl-C would.
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

export const REPO_ROOT = resolve(import.meta.dirname, '..', '..');
export const BRIDGE_MAIN = join(REPO_ROOT, 'apps/bridge/dist/cli/main.js');

export interface RunningStack {
  /** Base URL of the bridge, e.g. http://127.0.0.1:41234/ */
  url: string;
  /** The admin made from OC_ADMIN_USER / OC_ADMIN_PASSWORD (see support/signIn.ts). */
  admin: { username: string; password: string };
  /** OC_MCP_TOKEN: acts for the admin. Undefined when started with `mcp: false`. */
  mcpToken: string | undefined;
  /** X display of the local desktop, e.g. ':7'. */
  display: string;
  /** Environment for X clients (xdotool, xwd) aimed at that desktop. */
  xEnv: NodeJS.ProcessEnv;
  /** The bridge's node process (the desktop's Xvnc, openbox and xterm are its children). */
  pid: number;
  /** Everything the process printed so far (for failure messages). */
  output(): string;
  stop(): Promise<void>;
}

// Lines printed by apps/bridge/src/cli/main.ts once everything is up (the desktop line comes
// from apps/bridge/src/cli/desktopSource.ts).
const URL_LINE = /^\s*Open:\s+(https?:\/\/\S+)/m;
const DISPLAY_LINE = /^\s*Desktop:.*\bdisplay (:\d+) \(XAUTHORITY=([^;\s]+);/m;

export interface StackOptions {
  /** The desktop source flags; default `--desktop local`. */
  source?: string[];
  /** More `serve` flags, e.g. `['--mode', 'autopilot']`. */
  flags?: string[];
  /** Flags for node itself, before the script (e.g. `--cpu-prof`). */
  nodeArgs?: string[];
  /** Extra environment, e.g. OC_VNC_PASSWORD for `--vnc`. */
  env?: Record<string, string>;
  /** false: no OC_MCP_TOKEN (for stacks no MCP client talks to). Default true. */
  mcp?: boolean;
  timeoutMs?: number;
}

/** Stack without a local desktop (`--vnc …`): no X display to report. */
export type RemoteStack = Omit<RunningStack, 'display' | 'xEnv'>;

const secret = (bytes: number) => randomBytes(bytes).toString('base64url');

export async function startStack(
  options?: StackOptions & { source?: undefined },
): Promise<RunningStack>;
export async function startStack(options: StackOptions): Promise<RemoteStack>;
export async function startStack(options: StackOptions = {}): Promise<RunningStack | RemoteStack> {
  const timeoutMs = options.timeoutMs ?? 45_000;
  const source = options.source ?? ['--desktop', 'local'];
  const dataDir = await mkdtemp(join(tmpdir(), 'oc-e2e-data-'));
  const admin = { username: 'admin', password: `pw-${secret(12)}` };
  const mcpToken = options.mcp === false ? undefined : `e2e-${secret(24)}`;
  const child = spawn(
    process.execPath,
    [
      ...(options.nodeArgs ?? []),
      BRIDGE_MAIN,
      'serve',
      ...source,
      ...(options.flags ?? []),
      '--port',
      '0',
      '--data-dir',
      dataDir,
    ],
    {
      cwd: REPO_ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: {
        ...process.env,
        NO_COLOR: '1',
        OC_ADMIN_USER: admin.username,
        OC_ADMIN_PASSWORD: admin.password,
        ...(mcpToken === undefined ? {} : { OC_MCP_TOKEN: mcpToken }),
        ...options.env,
      },
    },
  );
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr = (stderr + chunk.toString()).slice(-20_000)));
  const output = () => `--- stdout ---\n${stdout}\n--- stderr ---\n${stderr}`;

  const stop = async () => {
    await stopChild(child);
    await rm(dataDir, { recursive: true, force: true });
  };

  try {
    const { url, printedDisplay } = await new Promise<{
      url: string;
      printedDisplay: { display: string; xauthority: string } | undefined;
    }>((ok, fail) => {
      const timer = setTimeout(
        () =>
          fail(new Error(`The bridge printed no "Open:" URL within ${timeoutMs} ms.\n${output()}`)),
        timeoutMs,
      );
      child.stdout.on('data', () => {
        const url = URL_LINE.exec(stdout)?.[1];
        if (url === undefined) return;
        clearTimeout(timer);
        const desktop = DISPLAY_LINE.exec(stdout);
        ok({
          url,
          printedDisplay:
            desktop?.[1] === undefined || desktop[2] === undefined
              ? undefined
              : { display: desktop[1], xauthority: desktop[2] },
        });
      });
      child.once('error', (err) => {
        clearTimeout(timer);
        fail(
          new Error(`Could not start ${BRIDGE_MAIN}: ${err.message}. Run \`npm run build\` first.`),
        );
      });
      child.once('exit', (code, signal) => {
        clearTimeout(timer);
        fail(
          new Error(
            `The bridge exited (code ${String(code)}, signal ${String(signal)}) before it was ready.\n${output()}`,
          ),
        );
      });
    });
    child.removeAllListeners('exit');
    const pid = child.pid ?? Number.NaN;
    const base = { url, admin, mcpToken, pid, output, stop };
    if (options.source !== undefined) return base;
    if (printedDisplay === undefined) {
      throw new Error(
        `The bridge printed no "Desktop: ... display :N (XAUTHORITY=...;" line; the e2e tests need the display and its X cookie for X-side checks.\n${output()}`,
      );
    }
    const { display, xauthority } = printedDisplay;
    // X clients (xdotool, xwd, xclip, xev) need the display's cookie: the desktop refuses
    // anyone without it.
    return { ...base, display, xEnv: { ...process.env, DISPLAY: display, XAUTHORITY: xauthority } };
  } catch (err) {
    await stop();
    throw err;
  }
}

/** SIGINT, then SIGKILL if the bridge has not exited after `graceMs`. */
async function stopChild(child: ChildProcess, graceMs = 10_000): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((done) => child.once('exit', () => done()));
  child.kill('SIGINT');
  const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
  await exited;
  clearTimeout(timer);
}
