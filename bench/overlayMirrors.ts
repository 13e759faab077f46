// The overlay bench's other windows of the person (mirrors: they follow the control window's
// overlay store over the bridge): opening one with the overlay probes in, and measuring them.
// - Frames with 5,000 overlays changing in each kind of mirror, one window at a time beside the
//   control window (as a person has them: two windows at once would also measure each other's
//   share of this 2-core machine): one showing the whole desktop, one showing a part of it as a
//   second monitor's window does (the layout's crop parameters), both painting their boxes in
//   the worker, each with its main-thread work per frame from the page's probe and from
//   Chromium's trace, and the control window's probe in the same run (the mirror's comparison:
//   two windows doing the same work share the 2 cores); and, for before and after, a
//   whole-desktop mirror painting its boxes on its main thread (a browser that cannot hand a
//   canvas to a worker, as before issue 23).
// - A draw_overlay reaching a second window (within one frame of the call's return), and the
//   largest batch reaching it as one sync_state.
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { MAX_OVERLAYS, VIEWER_URL_PARAMS } from '@overlay-companion/protocol';
import type { CdpPage } from './cdpBrowser.js';
import { callOk, now, sleep } from './mcpClient.js';
import type { McpStack } from './mcpStack.js';
import { DESKTOP, someOverlays, updateWhileRecording } from './overlayLoad.js';
import { installOverlayProbes, overlaySeq, paintOf, takePaints } from './overlayPages.js';
import { summarize, type Summary } from './stats.js';

/** Page script: a browser that cannot hand a canvas to a worker (its layer paints on its main thread). */
export const NO_CANVAS_TRANSFER = `delete HTMLCanvasElement.prototype.transferControlToOffscreen;`;

/** The second monitor's window of a two-monitor layout side by side: the desktop's right half. */
export const RIGHT_HALF = { vx: 640, vy: 0, vw: 640, vh: 800 };

/** How the page's overlay layer paints its boxes ('worker' or 'main'). */
export function paintPath(page: CdpPage): Promise<string | null> {
  return page.evaluate<string | null>(
    `window.__overlayCompanion.overlayPaint ? window.__overlayCompanion.overlayPaint().path : 'main'`,
  );
}

/** `page`'s link and role ('open/control', 'open/mirror'), or '' before it has one. */
export function linkRole(page: CdpPage): Promise<string> {
  return page
    .evaluate<string>(
      `(() => { const c = window.__overlayCompanion && window.__overlayCompanion.control(); return c ? c.link + '/' + c.role : ''; })()`,
    )
    .catch(() => '');
}

/**
 * Another window of the person, once it is a mirror with the overlay probes in; `crop` opens it
 * as a monitor's window showing that part of the desktop (the viewer's URL parameters).
 */
export async function openMirror(
  stack: McpStack,
  options: { width: number; height: number; initScript?: string; crop?: typeof RIGHT_HALF },
): Promise<CdpPage> {
  const { cookies } = await stack.page.client.Network.getCookies({ urls: [stack.url] });
  const url = new URL(stack.url);
  const { crop, ...window } = options;
  if (crop !== undefined)
    for (const key of ['vx', 'vy', 'vw', 'vh'] as const)
      url.searchParams.set(VIEWER_URL_PARAMS[key], String(crop[key]));
  const page = await stack.browser.newPage(url.href, {
    ...window,
    cookies: cookies.map((c) => ({ name: c.name, value: c.value })),
    newWindow: true,
  });
  try {
    await installOverlayProbes(page);
    const deadline = Date.now() + 20_000;
    for (;;) {
      const role = await linkRole(page);
      if (role === 'open/mirror') return page;
      if (Date.now() > deadline) throw new Error(`A window never became a mirror (${role}).`);
      await sleep(100);
    }
  } catch (err) {
    await page.close();
    throw err;
  }
}

/** One mirror's frames under the 5,000-overlay load. */
export interface MirrorFrames {
  /** Main-thread work per frame as the page's probe times it. */
  work_ms: Summary;
  /** The same frames from Chromium's trace: every task the window's main thread ran. */
  main_thread_ms: Summary;
  /** Store changes the window's layer painted in that run. */
  paints: number;
  /** Boxes the window's layer showed at the end (a part of the desktop shows fewer). */
  shown: number;
  /**
   * The control window's main-thread work per frame (probe) in the same run, beside this mirror:
   * what the mirror is compared with. The control window's own numbers are measured with no
   * other window open; two windows doing the same work share the machine's 2 cores.
   */
  control_beside_work_ms: Summary;
}

export interface MirrorResults {
  /** A mirror showing the whole desktop, painting in the worker. */
  whole: MirrorFrames;
  /** A second monitor's window showing the desktop's right half, painting in the worker. */
  part: MirrorFrames;
  /** Before: a whole-desktop mirror painting its boxes on its main thread (probe only). */
  whole_main_thread_painting_work_ms: Summary;
  /** The control window's probe beside that main-thread-painting mirror. */
  whole_main_thread_painting_control_beside_work_ms: Summary;
}

/** One mirror, alone beside the control window, through the load (traced when painting in the worker). */
async function oneMirror(
  stack: McpStack,
  client: Client,
  seconds: number,
  options: { initScript?: string; crop?: typeof RIGHT_HALF; path: 'worker' | 'main' },
): Promise<MirrorFrames> {
  const { path, ...open } = options;
  const page = await openMirror(stack, { ...DESKTOP, ...open });
  try {
    const painting = await paintPath(page);
    if (painting !== path) throw new Error(`The mirror paints in '${painting}', not '${path}'.`);
    const traced = path === 'worker';
    const {
      frames: [frames = [], control = []],
      traced: frameTrace,
    } = await updateWhileRecording(
      client,
      seconds,
      [page, stack.page],
      traced ? { trace: page } : {},
    );
    const paints = await takePaints(page);
    const shown = await page.evaluate<number>(
      `Number(document.querySelector('[data-testid="overlay-layer"]').dataset.overlayCount)`,
    );
    const work = summarize(frames.map((f) => f.work));
    const main = summarize(frameTrace.map((f) => f.work));
    if (traced && main.n < frames.length / 2)
      throw new Error(`The mirror's trace held ${main.n} frames of the ${frames.length} recorded.`);
    return {
      work_ms: work,
      main_thread_ms: main,
      paints: paints.length,
      shown,
      control_beside_work_ms: summarize(control.map((f) => f.work)),
    };
  } finally {
    await page.close();
  }
}

export async function mirrorsWhileUpdating(
  stack: McpStack,
  client: Client,
  seconds: number,
): Promise<MirrorResults> {
  const whole = await oneMirror(stack, client, seconds, { path: 'worker' });
  const part = await oneMirror(stack, client, seconds, { path: 'worker', crop: RIGHT_HALF });
  const before = await oneMirror(stack, client, seconds, {
    path: 'main',
    initScript: NO_CANVAS_TRANSFER,
  });
  return {
    whole,
    part,
    whole_main_thread_painting_work_ms: before.work_ms,
    whole_main_thread_painting_control_beside_work_ms: before.control_beside_work_ms,
  };
}

/**
 * A second window: the largest batch reaching it as one sync_state, and single draw_overlay
 * calls from their start and return until it painted them.
 */
export async function secondWindow(stack: McpStack, client: Client, samples: number) {
  const second = await openMirror(stack, { width: 1000, height: 700 });
  try {
    // The largest batch: one sync_state to the other windows.
    const big: { control: number[]; second: number[] } = { control: [], second: [] };
    for (let i = 0; i < 5; i++) {
      await callOk(client, 'clear_overlays', {});
      await sleep(200);
      await takePaints(stack.page);
      await takePaints(second);
      const start = now();
      await callOk(client, 'batch_overlay', { overlays: someOverlays(MAX_OVERLAYS, 500 + i) });
      const seq = await overlaySeq(stack.page);
      big.control.push((await paintOf(stack.page, seq)).at - start);
      big.second.push((await paintOf(second, seq)).at - start);
    }
    await callOk(client, 'clear_overlays', {});
    const afterReturn: number[] = [];
    const fromCall: number[] = [];
    for (let i = 0; i < samples + 3; i++) {
      await sleep(30);
      await takePaints(second);
      const start = now();
      await callOk(client, 'draw_overlay', {
        x: 20 + ((i * 37) % 1000),
        y: 20 + ((i * 53) % 600),
        width: 60,
        height: 40,
        color: 'gold',
      });
      const done = now();
      const seq = await overlaySeq(stack.page);
      const painted = await paintOf(second, seq);
      if (i >= 3) {
        afterReturn.push(painted.at - done);
        fromCall.push(painted.at - start);
      }
    }
    return { afterReturn, fromCall, big };
  } finally {
    await second.close();
  }
}
