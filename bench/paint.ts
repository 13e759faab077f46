// Time from a small X drawing change to the browser having painted it, through the whole
// embedded stack: a probe xterm on the real Xvnc desktop changes its background colour (a
// ~70×50 px repaint), the gateway encodes it, the bridge relays it, and the viewer's
// guacamole-common-js draws it into the display canvas in headless Chromium (signed in as the
// stack's admin, like a person's browser). Both clocks are this machine's wall clock
// (performance.timeOrigin + now()), read in Node and in the page.
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, open, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { chromium, type Page } from 'playwright-core';
import { startStack } from '../e2e/support/bridgeProcess.js';
import { signInContext } from '../e2e/support/signIn.js';
import { CHROMIUM_ARGS, CHROMIUM_PATH } from './chromium.js';
import { summarize, type Summary } from './stats.js';
import { mappedWindowRect } from './xWindow.js';

const run = promisify(execFile);

export interface PaintResults {
  change_to_paint_ms: Summary;
}

const COLORS: readonly [string, [number, number, number]][] = [
  ['#ff0000', [255, 0, 0]],
  ['#00ff00', [0, 255, 0]],
  ['#0000ff', [0, 0, 255]],
  ['#ffff00', [255, 255, 0]],
];

const now = () => performance.timeOrigin + performance.now();

export async function benchPaint(samples: number): Promise<PaintResults> {
  const stack = await startStack({ mcp: false });
  const dir = await mkdtemp(join(tmpdir(), 'oc-bench-paint-'));
  const browser = await chromium.launch({ executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS });
  let probe: ChildProcess | undefined;
  try {
    const fifo = join(dir, 'colors');
    await run('mkfifo', [fifo]);
    // Bottom right, clear of the desktop's own xterm, so the window manager never stacks the
    // probe underneath it.
    probe = spawn(
      'xterm',
      [
        '-T',
        'oc-probe',
        '-geometry',
        '10x3+1100+680',
        '-e',
        'sh',
        '-c',
        `exec 3<>${fifo}; while read c <&3; do printf '\\033]11;%s\\007' "$c"; done`,
      ],
      { env: stack.xEnv, stdio: 'ignore' },
    );
    probe.on('error', () => undefined);
    const probeRect = await mappedWindowRect(stack.xEnv, 'oc-probe', 'The probe xterm');
    const x = probeRect.x + Math.floor(probeRect.width / 2);
    const y = probeRect.y + Math.floor(probeRect.height / 2);
    await run('xdotool', ['mousemove', '5', '795'], { env: stack.xEnv });
    const writer = await open(fifo, 'r+');

    const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    await signInContext(context, stack);
    const page = await context.newPage();
    await page.goto(stack.url);
    await page.getByTestId('connection-label').filter({ hasText: 'Connected' }).waitFor();
    await new Promise((resolve) => setTimeout(resolve, 1500));

    const latencies: number[] = [];
    for (let i = 0; i < samples + 3; i++) {
      const [name, rgb] = COLORS[i % COLORS.length]!;
      const painted = waitForPixel(page, x, y, rgb);
      await page.evaluate(() => undefined); // the watcher is armed before the change
      const start = now();
      await writer.write(`${name}\n`);
      const paintedAt = await painted;
      if (i >= 3) latencies.push(paintedAt - start); // first few warm up the pipeline
    }
    await writer.close();
    return { change_to_paint_ms: summarize(latencies) };
  } finally {
    probe?.kill();
    await browser.close();
    await stack.stop();
    await rm(dir, { recursive: true, force: true });
  }
}

/**
 * Resolves with the page's wall-clock time when the display canvas shows `rgb` at desktop
 * pixel (x, y). Polls with a zero-delay timer (≈4 ms clamp) so it never waits for a frame.
 * The page code is a string: tsx's name-keeping helpers do not exist inside the page.
 */
const WAIT_FOR_PIXEL = `(async ({ x, y, rgb }) => {
  const canvases = [...document.querySelectorAll('.remote-display__canvas canvas')];
  const canvas = canvases.sort((a, b) => b.width * b.height - a.width * a.height)[0];
  const context = canvas && canvas.getContext('2d', { willReadFrequently: true });
  if (!context) throw new Error('no display canvas');
  const deadline = performance.now() + 10000;
  for (;;) {
    const d = context.getImageData(x, y, 1, 1).data;
    if (Math.abs(d[0] - rgb[0]) < 8 && Math.abs(d[1] - rgb[1]) < 8 && Math.abs(d[2] - rgb[2]) < 8) {
      return performance.timeOrigin + performance.now();
    }
    if (performance.now() > deadline) throw new Error('pixel never became ' + rgb.join(','));
    await new Promise((resolve) => setTimeout(resolve, 0));
  }
})`;

function waitForPixel(
  page: Page,
  x: number,
  y: number,
  rgb: [number, number, number],
): Promise<number> {
  return page.evaluate<number>(`${WAIT_FOR_PIXEL}(${JSON.stringify({ x, y, rgb })})`);
}
