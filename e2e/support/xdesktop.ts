// Observes the remote desktop from the X side (xdotool on the desktop's DISPLAY), so the test
// checks what really happened on the desktop, not what the viewer believes happened.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';

const run = promisify(execFile);

export interface Rect {
  x: number;
  y: number;
  width: number;
  height: number;
}

async function xdotool(env: NodeJS.ProcessEnv, args: string[]): Promise<string> {
  const { stdout } = await run('xdotool', args, { env, timeout: 15_000 });
  return stdout;
}

/** Size of the X screen (the remote desktop), in desktop pixels. */
export async function screenSize(
  env: NodeJS.ProcessEnv,
): Promise<{ width: number; height: number }> {
  const [width, height] = (await xdotool(env, ['getdisplaygeometry']))
    .trim()
    .split(/\s+/)
    .map(Number);
  if (!width || !height) throw new Error('xdotool getdisplaygeometry printed no size');
  return { width, height };
}

/**
 * Geometry of the first visible window of an X class, waiting up to `timeoutMs` for one to be
 * mapped (xterm takes several seconds to start on a busy machine).
 */
export async function windowRect(
  env: NodeJS.ProcessEnv,
  windowClass: string,
  timeoutMs = 30_000,
): Promise<Rect> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    // `xdotool search` exits 1 while nothing matches yet.
    const found = await xdotool(env, ['search', '--onlyvisible', '--class', windowClass]).catch(
      () => '',
    );
    const id = found.trim().split('\n')[0];
    if (id) return geometry(env, id);
    if (Date.now() > deadline) {
      throw new Error(
        `No visible ${windowClass} window appeared on ${env.DISPLAY ?? '?'} within ${timeoutMs} ms`,
      );
    }
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

async function geometry(env: NodeJS.ProcessEnv, id: string): Promise<Rect> {
  const shell = await xdotool(env, ['getwindowgeometry', '--shell', id]);
  const value = (key: string) => {
    const match = new RegExp(`^${key}=(-?\\d+)$`, 'm').exec(shell);
    if (!match?.[1]) throw new Error(`xdotool getwindowgeometry printed no ${key}:\n${shell}`);
    return Number(match[1]);
  };
  return { x: value('X'), y: value('Y'), width: value('WIDTH'), height: value('HEIGHT') };
}

/** Where the X pointer is, in desktop pixels. */
export async function pointerLocation(env: NodeJS.ProcessEnv): Promise<{ x: number; y: number }> {
  const shell = await xdotool(env, ['getmouselocation', '--shell']);
  const x = /^X=(\d+)$/m.exec(shell)?.[1];
  const y = /^Y=(\d+)$/m.exec(shell)?.[1];
  if (x === undefined || y === undefined)
    throw new Error(`xdotool getmouselocation printed no X/Y:\n${shell}`);
  return { x: Number(x), y: Number(y) };
}
