// Waits for X clients a test started to be on screen. Under load (two shared cores, several
// desktops at once) xterm can take many seconds to map, and a test that compares pixels or
// types keys before that would fail for the wrong reason.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** Resolves once a visible window of `windowClass` exists on the desktop of `env`. */
export async function waitForVisibleWindow(
  env: NodeJS.ProcessEnv,
  windowClass: string,
  timeoutMs = 45_000,
): Promise<string> {
  const seconds = String(Math.ceil(timeoutMs / 1000));
  try {
    const { stdout } = await run(
      'timeout',
      [seconds, 'xdotool', 'search', '--sync', '--onlyvisible', '--class', windowClass],
      { env },
    );
    return stdout.trim().split('\n')[0] ?? '';
  } catch {
    throw new Error(
      `No visible "${windowClass}" window after ${seconds} s on ${env.DISPLAY ?? '?'}; is the machine overloaded, or did the client fail to start?`,
    );
  }
}
