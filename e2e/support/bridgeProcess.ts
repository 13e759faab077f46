// Runs the real stack — `overlay-companion serve --desktop local` (bridge + embedded gateway +
// Xvnc desktop with an xterm) — as a child process for one test worker, reads where it listens
// and which X display it started from its console output, and stops it with SIGINT the way a
// person pressing Ctrl-C would.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

export const REPO_ROOT = resolve(import.meta.dirname, '..', '..');
export const BRIDGE_MAIN = join(REPO_ROOT, 'apps/bridge/dist/cli/main.js');

export interface RunningStack {
  /** Base URL of the bridge, e.g. http://127.0.0.1:41234/ */
  url: string;
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

// Lines printed by apps/bridge/src/cli/main.ts once everything is up.
const URL_LINE = /^\s*Open:\s+(https?:\/\/\S+)/m;
const DISPLAY_LINE = /^\s*Desktop:.*\bdisplay (:\d+)/m;

export interface StackOptions {
  /** The desktop source flags; default `--desktop local`. */
  source?: string[];
  /** More `serve` flags, e.g. `['--mode', 'autopilot']`. */
  flags?: string[];
  /** Flags for node itself, before the script (e.g. `--cpu-prof`). */
  nodeArgs?: string[];
  /** Extra environment, e.g. OC_VNC_PASSWORD for `--vnc`. */
  env?: Record<string, string>;
  timeoutMs?: number;
}

/** Stack without a local desktop (`--vnc …`): no X display to report. */
export type RemoteStack = Omit<RunningStack, 'display' | 'xEnv'>;

export async function startStack(
  options?: StackOptions & { source?: undefined },
): Promise<RunningStack>;
export async function startStack(options: StackOptions): Promise<RemoteStack>;
export async function startStack(options: StackOptions = {}): Promise<RunningStack | RemoteStack> {
  const timeoutMs = options.timeoutMs ?? 45_000;
  const source = options.source ?? ['--desktop', 'local'];
  const dataDir = await mkdtemp(join(tmpdir(), 'oc-e2e-data-'));
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
      env: { ...process.env, NO_COLOR: '1', ...options.env },
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
      printedDisplay: string | undefined;
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
        ok({ url, printedDisplay: DISPLAY_LINE.exec(stdout)?.[1] });
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
    const display = (await healthzDisplay(url)) ?? printedDisplay;
    const pid = child.pid ?? Number.NaN;
    if (options.source !== undefined) return { url, pid, output, stop };
    if (display === undefined) {
      throw new Error(
        `The bridge reported no X display (neither /healthz desktop.display nor a "Desktop: ... display :N" line); the e2e test needs it for X-side checks.\n${output()}`,
      );
    }
    return { url, pid, display, xEnv: { ...process.env, DISPLAY: display }, output, stop };
  } catch (err) {
    await stop();
    throw err;
  }
}

/**
 * The local desktop's X display from `/healthz` (`desktop.display`), when the bridge reports it
 * there; the console line is only meant for people, so it is the fallback.
 */
async function healthzDisplay(baseUrl: string): Promise<string | undefined> {
  try {
    const response = await fetch(new URL('healthz', baseUrl));
    const body: unknown = await response.json();
    if (typeof body !== 'object' || body === null || !('desktop' in body)) return undefined;
    const desktop: unknown = body.desktop;
    if (typeof desktop !== 'object' || desktop === null || !('display' in desktop))
      return undefined;
    return typeof desktop.display === 'string' && /^:\d+$/.test(desktop.display)
      ? desktop.display
      : undefined;
  } catch {
    return undefined;
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
