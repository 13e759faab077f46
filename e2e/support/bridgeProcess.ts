// Runs the real stack — `overlay-companion serve --desktop local` (bridge + embedded gateway +
// Xvnc desktop with an xterm) — as a child process for one test worker, scripted the way
// unattended setups are: OC_ADMIN_USER / OC_ADMIN_PASSWORD create the admin the tests sign in
// as, OC_MCP_TOKEN is the token MCP clients use (both random per stack; serve never prints
// them). Or, with startFirstRunStack, as a person's first run: neither is set, and serve prints
// the one-time setup link. Reads where it listens, which X display it started and its X cookie
// file (XAUTHORITY) from its console output, and stops it with SIGINT the way a person pressing
// Ctrl-C would.
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { keepChildOutput, registerSecret } from '../../apps/bridge/src/testing/testLogs.js';
import { join, resolve } from 'node:path';
import { removeDataDir } from '../../apps/bridge/src/testing/dataDirs.js';
import { DESKTOP_HOME_ON_HOST } from './desktopFiles.js';

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
const DISPLAY_LINE = /^\s*Desktop:.*\bdisplay (:\d+) \(XAUTHORITY=([^;\s]+);(?: HOME=([^;]+);)?/m;
// From apps/bridge/src/cli/serveBanner.ts, on a bridge with no admin yet.
const SETUP_LINE = /^\s*First run: open (https?:\/\/\S+\/setup#code=\S+)/m;

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
  /**
   * Run on this data dir (e.g. a restarted bridge's) and leave it when stopping; default: a fresh
   * temporary one, removed at stop.
   */
  dataDir?: string;
  timeoutMs?: number;
}

/** Stack without a local desktop (`--vnc …`): no X display to report. */
export type RemoteStack = Omit<RunningStack, 'display' | 'xEnv'>;

const secret = (bytes: number) => randomBytes(bytes).toString('base64url');

/** A stack started as a person's first run: no admin yet, and the setup link serve printed. */
export interface FirstRunStack extends Omit<RunningStack, 'admin' | 'mcpToken'> {
  /** The one-time link `…/setup#code=…` (works once, until the bridge restarts). */
  setupUrl: string;
}

export async function startStack(
  options?: StackOptions & { source?: undefined },
): Promise<RunningStack>;
export async function startStack(options: StackOptions): Promise<RemoteStack>;
export async function startStack(options: StackOptions = {}): Promise<RunningStack | RemoteStack> {
  const admin = { username: 'admin', password: `pw-${secret(12)}` };
  const mcpToken = options.mcp === false ? undefined : `e2e-${secret(24)}`;
  const launched = await launch(options, {
    OC_ADMIN_USER: admin.username,
    OC_ADMIN_PASSWORD: admin.password,
    ...(mcpToken === undefined ? {} : { OC_MCP_TOKEN: mcpToken }),
  });
  const base = { ...launched.base, admin, mcpToken };
  return launched.x === undefined ? base : { ...base, ...launched.x };
}

/**
 * `serve --desktop local` as on a fresh machine: no OC_ADMIN_USER / OC_ADMIN_PASSWORD (nor
 * OC_MCP_TOKEN), so the bridge has nobody and prints the one-time setup link instead.
 */
export async function startFirstRunStack(
  options: Omit<StackOptions, 'source' | 'mcp'> = {},
): Promise<FirstRunStack> {
  const launched = await launch({ ...options, mcp: false }, {}, SETUP_LINE);
  const { x, setupUrl } = launched;
  if (x === undefined || setupUrl === undefined) {
    await launched.base.stop();
    throw new Error(
      `The bridge printed no desktop line or no "First run: open …/setup#code=…" link.\n${launched.base.output()}`,
    );
  }
  return { ...launched.base, ...x, setupUrl };
}

interface Launched {
  base: Omit<RemoteStack, 'admin' | 'mcpToken'>;
  /** The local desktop's display and X environment, when serve printed them. */
  x: Pick<RunningStack, 'display' | 'xEnv'> | undefined;
  /** The first-run setup link, when `alsoWaitFor` asked for it. */
  setupUrl: string | undefined;
}

/** Starts serve with `env` on top of ours, and waits for its URL (and `alsoWaitFor`'s match). */
async function launch(
  options: StackOptions,
  env: Record<string, string>,
  alsoWaitFor?: RegExp,
): Promise<Launched> {
  const timeoutMs = options.timeoutMs ?? 45_000;
  const source = options.source ?? ['--desktop', 'local'];
  const ownDataDir = options.dataDir === undefined;
  const dataDir = options.dataDir ?? (await mkdtemp(join(tmpdir(), 'oc-e2e-data-')));
  // The stack's people and tokens come only from `env`: none leak in from the runner's shell.
  const inherited: NodeJS.ProcessEnv = { ...process.env };
  for (const name of ['OC_ADMIN_USER', 'OC_ADMIN_PASSWORD', 'OC_MCP_TOKEN']) delete inherited[name];
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
      env: { ...inherited, NO_COLOR: '1', ...env, ...options.env },
    },
  );
  // Kept for npm test's log scan, with the secrets this stack was given.
  keepChildOutput('e2e-serve', child);
  const given = { ...env, ...options.env };
  registerSecret(
    ...['OC_ADMIN_PASSWORD', 'OC_MCP_TOKEN', 'OC_VNC_PASSWORD']
      .map((name) => given[name])
      .filter((value): value is string => value !== undefined),
  );
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr = (stderr + chunk.toString()).slice(-20_000)));
  const output = () => `--- stdout ---\n${stdout}\n--- stderr ---\n${stderr}`;

  const stop = async () => {
    await stopChild(child);
    if (ownDataDir) await removeDataDir(dataDir);
  };

  try {
    const { url, printedDisplay, setupUrl } = await new Promise<{
      url: string;
      printedDisplay: { display: string; xauthority: string; home: string | undefined } | undefined;
      setupUrl: string | undefined;
    }>((ok, fail) => {
      const timer = setTimeout(
        () =>
          fail(
            new Error(
              `The bridge printed no "Open:" URL${alsoWaitFor === undefined ? '' : ` or no ${String(alsoWaitFor)}`} within ${timeoutMs} ms.\n${output()}`,
            ),
          ),
        timeoutMs,
      );
      child.stdout.on('data', () => {
        const url = URL_LINE.exec(stdout)?.[1];
        if (url === undefined) return;
        const also = alsoWaitFor === undefined ? undefined : alsoWaitFor.exec(stdout)?.[1];
        if (alsoWaitFor !== undefined && also === undefined) return;
        clearTimeout(timer);
        const desktop = DISPLAY_LINE.exec(stdout);
        ok({
          url,
          printedDisplay:
            desktop?.[1] === undefined || desktop[2] === undefined
              ? undefined
              : { display: desktop[1], xauthority: desktop[2], home: desktop[3] },
          setupUrl: also,
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
    const base = { url, pid, output, stop };
    if (options.source !== undefined) return { base, x: undefined, setupUrl };
    if (printedDisplay === undefined) {
      throw new Error(
        `The bridge printed no "Desktop: ... display :N (XAUTHORITY=...;" line; the e2e tests need the display and its X cookie for X-side checks.\n${output()}`,
      );
    }
    const { display, xauthority, home } = printedDisplay;
    // X clients (xdotool, xwd, xclip, xev) need the display's cookie: the desktop refuses
    // anyone without it. Where the desktop keeps its files rides along for desktopFile().
    const xEnv: NodeJS.ProcessEnv = { ...process.env, DISPLAY: display, XAUTHORITY: xauthority };
    if (home !== undefined) xEnv[DESKTOP_HOME_ON_HOST] = home;
    return { base, x: { display, xEnv }, setupUrl };
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
