// The overlay bench's load, shared by the bench (overlays.ts, overlayMirrors.ts) and its
// explainer (overlayFramesExplain.ts): overlays spread over the 1280×800 desktop, and ~5,000
// live overlays changing ~20 times a second through a real MCP client while pages record their
// animation frames (and, when asked, Chromium traces one of them).
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { CdpPage } from './cdpBrowser.js';
import { callOk, sleep } from './mcpClient.js';
import { mainThreadFrames, traceWhile, type TracedFrame } from './overlayFrameTrace.js';
import { startFrames, stopFrames, takePaints, type FrameRecord } from './overlayPages.js';

export const DESKTOP = { width: 1280, height: 800 };

/** `count` overlays spread over the desktop; every `labelEvery`th labelled (default every tenth). */
export function someOverlays(
  count: number,
  seed: number,
  extra: Record<string, unknown> = {},
  labelEvery = 10,
) {
  const colors = ['red', 'gold', '#00aaff', 'lime', 'orange', 'magenta'];
  return Array.from({ length: count }, (_, i) => {
    const k = (i * 7919 + seed * 104_729) % 1_000_003;
    const width = 12 + (k % 70);
    const height = 10 + ((k >> 3) % 50);
    return {
      x: k % (DESKTOP.width - width),
      y: (k >> 5) % (DESKTOP.height - height),
      width,
      height,
      color: colors[i % colors.length],
      opacity: 0.35,
      ...(i % labelEvery === 0 ? { label: `item ${i}` } : {}),
      ...extra,
    };
  });
}

/** How updateWhileRecording loads the pages, and whether it traces one of them. */
export interface UpdateOptions {
  /** Every `labelEvery`th overlay has a label (default every tenth). */
  labelEvery?: number;
  /** Chromium's trace over the recorded frames, read as that page's main-thread work per frame. */
  trace?: CdpPage;
  /** With `trace`: also what ran in each frame (TracedFrame.top). */
  explain?: boolean;
}

/**
 * ~5,000 live overlays changing ~20 times a second, while `pages` record their animation frames;
 * the frames of each page, in order, how many overlays the first page held at the end, and with
 * `trace`, that page's frames as Chromium's trace has them (overlayFrameTrace.ts: every
 * main-thread task, not only the frame's own work).
 */
export async function updateWhileRecording(
  client: Client,
  seconds: number,
  pages: readonly CdpPage[],
  options: UpdateOptions = {},
): Promise<{ frames: FrameRecord[][]; live: number; traced: TracedFrame[] }> {
  const labelEvery = options.labelEvery ?? 10;
  await callOk(client, 'clear_overlays', {});
  await callOk(client, 'batch_overlay', { overlays: someOverlays(4_600, 99, {}, labelEvery) });
  await sleep(500);
  for (const page of pages) await takePaints(page);
  for (const page of pages) await startFrames(page);
  const until = Date.now() + seconds * 1000;
  let round = 0;
  // Every 100 ms, 20 temporaries that live 2 s: ~400 of them alive, so ~5,000 in all, with a
  // batch drawn and a batch expiring about 10 times a second each. (That is 400 overlay
  // messages a second from the control window; the bridge closes a viewer past 500 a second.)
  const load = async () => {
    while (Date.now() < until) {
      const started = Date.now();
      await callOk(client, 'batch_overlay', {
        overlays: someOverlays(20, 1_000 + round++, { temporary_ms: 2_000 }, labelEvery),
      });
      await sleep(Math.max(0, 100 - (Date.now() - started)));
    }
  };
  // The frames are taken and the overlays counted before the trace stops: stopping it flushes
  // the trace from every thread (work the probe must not count), and takes long enough for
  // temporaries to expire.
  const frames: FrameRecord[][] = [];
  let live = 0;
  const run = async () => {
    await load();
    for (const page of pages) frames.push(await stopFrames(page));
    if (pages[0] !== undefined)
      live = await pages[0].evaluate<number>(`window.__overlayCompanion.overlays().length`);
  };
  const traced = options.trace;
  if (traced === undefined) {
    await run();
    return { frames, live, traced: [] };
  }
  const frameId = await pageFrameId(traced);
  const events = await traceWhile(traced, run);
  // The first and last traced frames hold the trace's own start and stop.
  return {
    frames,
    live,
    traced: mainThreadFrames(events, { explain: options.explain, frameId }).slice(2, -2),
  };
}

/** The page's main frame id (the trace names the renderer process that runs it). */
async function pageFrameId(page: CdpPage): Promise<string> {
  const { frameTree } = await page.client.Page.getFrameTree();
  return frameTree.frame.id;
}
