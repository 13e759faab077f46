// Test helpers that look at a real X desktop from outside: capture the root window with
// `xwd -root` and compare it with an RGBA framebuffer pixel for pixel. Shared by the RFB client
// tests and the gateway session tests.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { parseXwd, type RgbaImage } from './xwd.js';

const run = promisify(execFile);

const BUFFER = { encoding: 'buffer', maxBuffer: 256 * 1024 * 1024 } as const;

/**
 * Which X desktop to look at: the environment X clients need for it (DISPLAY and XAUTHORITY,
 * e.g. `LocalDesktop.env`), or a bare display name such as ':7' for a display that needs no
 * cookie.
 */
export type XTarget = string | NodeJS.ProcessEnv;

function xEnv(target: XTarget): NodeJS.ProcessEnv & { DISPLAY: string } {
  const env = typeof target === 'string' ? { ...process.env, DISPLAY: target } : target;
  const display = env.DISPLAY;
  if (display === undefined) throw new Error('The X environment has no DISPLAY; pass desktop.env.');
  return { ...env, DISPLAY: display };
}

/**
 * Captures the whole X screen as RGBA with `xwd -root`. Debian ships xwd in x11-apps, which
 * not every machine has; ImageMagick's `import -window root` writes the same XWD format from
 * the same XGetImage call, so it stands in when xwd is missing.
 */
export async function captureRoot(target: XTarget): Promise<RgbaImage> {
  const env = xEnv(target);
  const options = { ...BUFFER, env };
  try {
    const { stdout } = await run('xwd', ['-root', '-silent', '-display', env.DISPLAY], options);
    return parseXwd(stdout);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  const { stdout } = await run(
    'import',
    ['-display', env.DISPLAY, '-window', 'root', 'xwd:-'],
    options,
  );
  return parseXwd(stdout);
}

export interface RgbaDifference {
  /** Number of pixels whose RGB differs (alpha is ignored). */
  mismatches: number;
  /** First differing pixel, for the failure message. */
  first?: { x: number; y: number; expected: string; actual: string };
  sizeMismatch?: string;
}

const hex = (b: Buffer, o: number) => b.subarray(o, o + 3).toString('hex');

/** Compares RGB of two RGBA images of the same size. */
export function compareRgba(expected: RgbaImage, actual: RgbaImage): RgbaDifference {
  if (expected.width !== actual.width || expected.height !== actual.height) {
    return {
      mismatches: Math.max(expected.width * expected.height, actual.width * actual.height),
      sizeMismatch: `expected ${expected.width}x${expected.height}, got ${actual.width}x${actual.height}`,
    };
  }
  let mismatches = 0;
  let first: RgbaDifference['first'];
  const a = expected.rgba;
  const b = actual.rgba;
  for (let o = 0; o < a.length; o += 4) {
    if (a[o] !== b[o] || a[o + 1] !== b[o + 1] || a[o + 2] !== b[o + 2]) {
      if (mismatches === 0) {
        const index = o / 4;
        first = {
          x: index % expected.width,
          y: Math.floor(index / expected.width),
          expected: hex(a, o),
          actual: hex(b, o),
        };
      }
      mismatches++;
    }
  }
  return first ? { mismatches, first } : { mismatches };
}

/**
 * Polls until `current()` equals the X screen, or the timeout passes; returns the last
 * difference (mismatches 0 on success). The caller keeps updates flowing meanwhile.
 */
export async function waitForScreenMatch(
  display: XTarget,
  current: () => RgbaImage,
  timeoutMs = 10_000,
): Promise<RgbaDifference> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const screen = await captureRoot(display);
    const diff = compareRgba(screen, current());
    if (diff.mismatches === 0 || Date.now() > deadline) return diff;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
