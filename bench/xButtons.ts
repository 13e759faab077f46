// Sees mouse button presses arrive on the X server: an `xev` window (a real X client from
// x11-utils) at a known place on the desktop, reporting only button events. Its stdout is
// line-buffered through stdbuf, so each "ButtonPress event" line reaches us as soon as xev has
// read the event; we stamp it with our wall clock the moment it arrives. The window sits in the
// bottom-right corner, clear of the local desktop's xterm (904×544 at 41,60), which openbox may
// keep above a newer window.
import { spawn } from 'node:child_process';
import { now } from './mcpClient.js';
import { mappedWindowRect, type XRect } from './xWindow.js';

export interface ButtonWatcher {
  /** The window's inside, in desktop pixels. */
  rect: XRect;
  /** Resolves with our wall-clock time of the first ButtonPress seen after `after`. */
  nextPress(after: number, timeoutMs?: number): Promise<number>;
  stop(): void;
}

const TITLE = 'oc-bench-buttons';

export async function watchButtons(env: NodeJS.ProcessEnv): Promise<ButtonWatcher> {
  const child = spawn(
    'stdbuf',
    ['-oL', 'xev', '-name', TITLE, '-geometry', '300x150+960+630', '-event', 'button'],
    { env, stdio: ['ignore', 'pipe', 'ignore'] },
  );
  child.on('error', () => undefined);
  const presses: number[] = [];
  const waiters: (() => void)[] = [];
  let partial = '';
  child.stdout.on('data', (chunk: Buffer) => {
    const at = now();
    const lines = (partial + chunk.toString()).split('\n');
    partial = lines.pop() ?? '';
    for (const line of lines) if (line.startsWith('ButtonPress event')) presses.push(at);
    for (const wake of waiters.splice(0)) wake();
  });
  try {
    const rect = await mappedWindowRect(env, TITLE, 'The xev window');
    return {
      rect,
      nextPress: async (after, timeoutMs = 5_000) => {
        const deadline = now() + timeoutMs;
        for (;;) {
          const found = presses.find((t) => t >= after);
          if (found !== undefined) return found;
          const left = deadline - now();
          if (left <= 0) throw new Error('The X server reported no ButtonPress on the xev window.');
          await new Promise<void>((wake) => {
            const timer = setTimeout(wake, left);
            waiters.push(() => {
              clearTimeout(timer);
              wake();
            });
          });
        }
      },
      stop: () => child.kill('SIGTERM'),
    };
  } catch (err) {
    child.kill('SIGTERM');
    throw err;
  }
}
