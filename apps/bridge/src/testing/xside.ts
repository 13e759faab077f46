// Looking at a desktop from the X side in bridge tests (xdotool, xclip on its DISPLAY), so a
// test checks what really happened on the desktop rather than what the tunnel relayed.
import { execFile, spawn } from 'node:child_process';
import { promisify } from 'node:util';
import { eventually } from '@overlay-companion/gateway/testing';
import { expect } from 'vitest';

const run = promisify(execFile);

export interface XRect {
  x: number;
  y: number;
  width: number;
  height: number;
}

export async function screenSize(
  env: NodeJS.ProcessEnv,
): Promise<{ width: number; height: number }> {
  const started = Date.now();
  const { stdout } = await run('xdotool', ['getdisplaygeometry'], { env, timeout: 10_000 }).catch(
    (err: NodeJS.ErrnoException & { killed?: boolean; signal?: string; stderr?: string }) => {
      const how =
        err.killed === true
          ? 'no answer'
          : `exit ${String(err.code)}, signal ${String(err.signal)}`;
      throw new Error(
        `xdotool getdisplaygeometry on ${env.DISPLAY ?? '?'} failed after ${Date.now() - started} ms (${how}): ${err.stderr ?? err.message}`,
      );
    },
  );
  const [width, height] = stdout.trim().split(/\s+/).map(Number);
  if (!width || !height) throw new Error(`xdotool getdisplaygeometry printed "${stdout.trim()}"`);
  return { width, height };
}

/** A size as `WIDTHxHEIGHT`, as the X side's size is compared in tests. */
export function sizeText(size: { width: number; height: number }): string {
  return `${size.width}x${size.height}`;
}

/**
 * Waits (up to 15 s) for the X screen to be `text` (`WIDTHxHEIGHT`), then checks it: a failure
 * says the size it has. A resize reaches X a moment after the bridge hears of it (xrdp tells
 * the RDP client before X has resized).
 */
export async function screenSizeBecomes(env: NodeJS.ProcessEnv, text: string): Promise<void> {
  await eventually(
    `the X screen to be ${text}`,
    async () => sizeText(await screenSize(env)) === text,
    15_000,
  ).catch(() => undefined);
  expect(sizeText(await screenSize(env))).toBe(text);
}

/** The first visible window of an X class, waiting for one to be mapped. */
export async function windowRect(
  env: NodeJS.ProcessEnv,
  windowClass: string,
  timeoutMs = 30_000,
): Promise<XRect> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const found = await run('xdotool', ['search', '--onlyvisible', '--class', windowClass], {
      env,
    }).catch(() => ({ stdout: '' }));
    const id = found.stdout.trim().split('\n')[0];
    if (id) {
      const { stdout } = await run('xdotool', ['getwindowgeometry', '--shell', id], { env });
      const value = (key: string) => Number(new RegExp(`^${key}=(-?\\d+)$`, 'm').exec(stdout)?.[1]);
      return { x: value('X'), y: value('Y'), width: value('WIDTH'), height: value('HEIGHT') };
    }
    if (Date.now() > deadline)
      throw new Error(
        `No visible ${windowClass} window on ${env.DISPLAY ?? '?'} in ${timeoutMs} ms`,
      );
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

export async function pointer(env: NodeJS.ProcessEnv): Promise<{ x: number; y: number }> {
  const { stdout } = await run('xdotool', ['getmouselocation', '--shell'], { env });
  return {
    x: Number(/^X=(\d+)$/m.exec(stdout)?.[1]),
    y: Number(/^Y=(\d+)$/m.exec(stdout)?.[1]),
  };
}

/** The desktop's CLIPBOARD selection ('' when nobody owns it). */
export async function readClipboard(env: NodeJS.ProcessEnv): Promise<string> {
  const out = await run('xclip', ['-selection', 'clipboard', '-o'], { env, timeout: 5_000 }).catch(
    () => ({ stdout: '' }),
  );
  return out.stdout;
}

/**
 * Makes `text` the desktop's CLIPBOARD selection. xclip serves it in the background until
 * another client takes the selection; stop() ends it.
 */
export function ownClipboard(env: NodeJS.ProcessEnv, text: string): { stop(): void } {
  const xclip = spawn('xclip', ['-selection', 'clipboard', '-i'], {
    env,
    stdio: ['pipe', 'ignore', 'ignore'],
  });
  xclip.on('error', () => undefined);
  xclip.stdin.end(text);
  return { stop: () => xclip.kill('SIGTERM') };
}
