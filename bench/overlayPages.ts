// Page-side probes for the overlay bench, as page scripts (strings: they run in Chromium): when
// the overlay layer painted which store change (its data-painted-seq attribute, set at the end
// of the layer's animation-frame paint, watched by a MutationObserver), and a frame recorder —
// the interval between animation frames, and each frame's main-thread work from the frame's
// start through its rAF callbacks, style, layout and paint until the next task runs.
import type { CdpPage } from './cdpBrowser.js';

export interface PaintRecord {
  seq: number;
  /** Epoch milliseconds (performance.timeOrigin + now), comparable with the bench's clock. */
  at: number;
  /** The layer's own main-thread time for that paint (canvas and label tags). */
  ms: number;
}

export interface FrameRecord {
  interval: number;
  work: number;
}

const INSTALL = `(() => {
  if (window.__ocOverlayBench) return true;
  const layer = document.querySelector('[data-testid="overlay-layer"]');
  if (!layer) return false;
  const paints = [];
  new MutationObserver(() => {
    paints.push({ seq: Number(layer.dataset.paintedSeq), at: performance.timeOrigin + performance.now(), ms: Number(layer.dataset.paintMs) });
  }).observe(layer, { attributes: true, attributeFilter: ['data-painted-seq'] });
  const frames = [];
  let recording = false;
  let last = 0;
  const channel = new MessageChannel();
  let frameStart = 0;
  channel.port1.onmessage = () => {
    if (recording && frames.length > 0) frames[frames.length - 1].work = performance.now() - frameStart;
  };
  const tick = (t) => {
    if (!recording) return;
    if (last > 0) frames.push({ interval: t - last, work: NaN });
    last = t;
    frameStart = t;
    channel.port2.postMessage(0);
    requestAnimationFrame(tick);
  };
  window.__ocOverlayBench = {
    paints,
    frames,
    startFrames() { frames.length = 0; last = 0; recording = true; requestAnimationFrame(tick); },
    stopFrames() { recording = false; return frames.splice(0).filter((f) => !Number.isNaN(f.work)); },
  };
  return true;
})()`;

/** Installs the probes once the page shows its overlay layer. */
export async function installOverlayProbes(page: CdpPage, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await page.evaluate<boolean>(INSTALL)) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error('The viewer never showed its overlay layer.');
}

/** Paint records since the last call (and forgets them). */
export function takePaints(page: CdpPage): Promise<PaintRecord[]> {
  return page.evaluate<PaintRecord[]>(`window.__ocOverlayBench.paints.splice(0)`);
}

/** The first paint showing store change `seq` or later, waiting up to `timeoutMs`. */
export async function paintOf(
  page: CdpPage,
  seq: number,
  timeoutMs = 10_000,
): Promise<PaintRecord> {
  const deadline = Date.now() + timeoutMs;
  const seen: PaintRecord[] = [];
  while (Date.now() < deadline) {
    seen.push(...(await takePaints(page)));
    const hit = seen.find((p) => p.seq >= seq);
    if (hit !== undefined) return hit;
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  throw new Error(`No paint of overlay change ${seq} within ${timeoutMs} ms.`);
}

export function overlaySeq(page: CdpPage): Promise<number> {
  return page.evaluate<number>(`window.__overlayCompanion.overlaySeq()`);
}

export function startFrames(page: CdpPage): Promise<void> {
  return page.evaluate(`window.__ocOverlayBench.startFrames()`);
}

export function stopFrames(page: CdpPage): Promise<FrameRecord[]> {
  return page.evaluate<FrameRecord[]>(`window.__ocOverlayBench.stopFrames()`);
}
