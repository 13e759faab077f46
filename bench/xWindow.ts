// Where a bench's own X window (found by its title) sits on the desktop, once it is mapped:
// xwininfo's absolute position, since the window manager may move a window from the place it
// asked for (and xdotool's geometry is off by the window-manager frame).
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';

const run = promisify(execFile);

export interface XRect {
  x: number;
  y: number;
  width: number;
  height: number;
}

/** The inside of the window titled `name`, polled for up to ~10 s; `what` names it in the error. */
export async function mappedWindowRect(
  env: NodeJS.ProcessEnv,
  name: string,
  what: string,
): Promise<XRect> {
  for (let attempt = 0; attempt < 100; attempt++) {
    try {
      const { stdout } = await run('xwininfo', ['-name', name], { env, timeout: 2000 });
      const value = (label: string) =>
        Number(new RegExp(`${label}:\\s+(-?\\d+)`).exec(stdout)?.[1]);
      const rect = {
        x: value('Absolute upper-left X'),
        y: value('Absolute upper-left Y'),
        width: value('Width'),
        height: value('Height'),
      };
      if (stdout.includes('IsViewable') && Object.values(rect).every(Number.isFinite)) return rect;
    } catch {
      // not mapped yet
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`${what} never appeared on the desktop.`);
}
