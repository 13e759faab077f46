// Fleet tiles in Chromium (issue 21's Must show): N small desktops behind one bridge and our
// gateway, watched from headless Chromium first as the fleet page's N tiles (none focused or
// pointed at: thumbnails), then as N full viewers (one window each, the desktop's own size).
// Measured over the same seconds for both: the CPU of Chromium (all its processes), of the bridge
// and of the gateway, the tunnel characters the page(s) received (the bytes a browser downloads)
// and the frames painted (`sync` replies: guacamole-common-js sends one per frame drawn).
//
// Twenty full viewers of twenty busy desktops can saturate this machine's two cores: they then
// paint fewer frames than their desktops change, and their CPU understates what keeping up
// would cost. So besides the measured ratio (an upper bound on a fair one when they lag), each
// run reports frames painted per viewer or tile and CPU per frame, and the ratio is also given
// against full viewers that paint every change at their measured CPU per frame (a lower bound:
// part of a viewer's CPU does not grow with its frames).
import { API, type DesktopList } from '@overlay-companion/protocol';
import { startStack } from '../e2e/support/bridgeProcess.js';
import { adminSession } from '../e2e/support/signIn.js';
import { launchCdpBrowser, type CdpPage } from './cdpBrowser.js';
import { treeCpuMs } from './streamCpu.js';
import { COUNT_TUNNEL, type TunnelCounters } from './streamViewer.js';

export interface ChromiumRun {
  chromium_cpu_ms_per_s: number;
  bridge_cpu_ms_per_s: number;
  gateway_cpu_ms_per_s: number;
  /** All three together. */
  total_cpu_ms_per_s: number;
  /** Tunnel characters received by the page(s), per second (ASCII: bytes). */
  tunnel_bytes_per_s: number;
  frames_painted_per_s: number;
  /** Frames painted per second by each viewer or tile (mean). */
  frames_painted_per_s_each: number;
  /** Chromium, bridge and gateway CPU per frame painted, ms. */
  total_cpu_ms_per_frame: number;
}

export interface ChromiumTiles {
  tiles: ChromiumRun;
  full: ChromiumRun;
  /** How many times a second each desktop changes (what a full viewer that keeps up paints). */
  desktop_changes_per_s: number;
  /** N tiles' total CPU in full viewers' worth (one full viewer: the full run's total / N). */
  tiles_in_full_viewers_cpu: number;
  /**
   * The same against full viewers that paint every change, each costing the full run's CPU per
   * frame (a lower bound; equal to tiles_in_full_viewers_cpu when the viewers kept up).
   */
  tiles_in_full_viewers_cpu_keeping_up: number;
  tiles_in_full_viewers_bytes: number;
}

interface Target {
  host: string;
  port: number;
}

const READY_TIMEOUT_MS = 90_000;

/** Every tile's canvas has been painted (it gets its size at the first paint). */
const TILES_PAINTED = (n: number) =>
  `(() => { const c = [...document.querySelectorAll('[data-testid="fleet-tile-picture"] canvas')]; return c.length === ${String(n)} && c.every((x) => x.width > 1); })()`;
const VIEWER_CONNECTED = `(() => { const label = document.querySelector('[data-testid="connection-label"]'); return !!label && label.textContent.includes('Connected'); })()`;
const COUNTERS = '({ ...window.__ocStream, images: { ...window.__ocStream.images } })';

export async function benchTilesChromium(options: {
  desktops: readonly Target[];
  size: { width: number; height: number };
  /** How many times a second each desktop changes. */
  desktopChangesPerS: number;
  gateway: { port: number; pid: number };
  seconds: number;
  log: (line: string) => void;
}): Promise<ChromiumTiles> {
  const [first, ...rest] = options.desktops;
  if (first === undefined) throw new Error('benchTilesChromium needs desktops');
  const n = options.desktops.length;
  const stack = await startStack({
    source: ['--vnc', `${first.host}:${String(first.port)}`],
    flags: ['--guacd', `127.0.0.1:${String(options.gateway.port)}`],
    mcp: false,
  });
  const browser = await launchCdpBrowser();
  try {
    const session = await adminSession(stack);
    for (const [i, d] of rest.entries()) {
      const added = await session.request(API.desktops, {
        body: {
          name: `Agent ${String(i + 2)}`,
          // This bridge reaches desktops through a Guacamole server (ours, at --guacd).
          kind: 'guacd-vnc',
          params: { host: d.host, port: d.port },
        },
      });
      if (added.status !== 201) throw new Error(`adding a desktop: ${await added.text()}`);
    }
    // The command line's desktop is made when the directory first loads (the fleet page does).
    const desktopIds = async (): Promise<string[]> => {
      const deadline = Date.now() + READY_TIMEOUT_MS;
      for (;;) {
        const listed = (await (await session.request(API.desktops)).json()) as DesktopList;
        if (listed.desktops.length === n) return listed.desktops.map((d) => d.id);
        if (Date.now() > deadline) {
          throw new Error(`expected ${String(n)} desktops, got ${String(listed.desktops.length)}`);
        }
        await new Promise((resolve) => setTimeout(resolve, 500));
      }
    };
    const at = session.cookie.indexOf('=');
    const cookies = [{ name: session.cookie.slice(0, at), value: session.cookie.slice(at + 1) }];

    /** `pictures`: the viewers or tiles the pages show, for the per-picture frame rate. */
    const measure = async (pages: CdpPage[], pictures: number): Promise<ChromiumRun> => {
      await new Promise((resolve) => setTimeout(resolve, 3000));
      const read = async () => ({
        chromium: treeCpuMs(browser.pid),
        bridge: treeCpuMs(stack.pid),
        gateway: treeCpuMs(options.gateway.pid),
        counters: await Promise.all(pages.map((p) => p.evaluate<TunnelCounters>(COUNTERS))),
        at: Date.now(),
      });
      const before = await read();
      await new Promise((resolve) => setTimeout(resolve, options.seconds * 1000));
      const after = await read();
      const wallS = (after.at - before.at) / 1000;
      const rate = (a: number, b: number) => Math.round(((b - a) / wallS) * 100) / 100;
      const sum = (c: TunnelCounters[], key: 'charsReceived' | 'framesPainted') =>
        c.reduce((s, x) => s + x[key], 0);
      const run = {
        chromium_cpu_ms_per_s: rate(before.chromium, after.chromium),
        bridge_cpu_ms_per_s: rate(before.bridge, after.bridge),
        gateway_cpu_ms_per_s: rate(before.gateway, after.gateway),
        tunnel_bytes_per_s: Math.round(
          rate(sum(before.counters, 'charsReceived'), sum(after.counters, 'charsReceived')),
        ),
        frames_painted_per_s: rate(
          sum(before.counters, 'framesPainted'),
          sum(after.counters, 'framesPainted'),
        ),
      };
      const total = run.chromium_cpu_ms_per_s + run.bridge_cpu_ms_per_s + run.gateway_cpu_ms_per_s;
      return {
        ...run,
        total_cpu_ms_per_s: round(total),
        frames_painted_per_s_each: round(run.frames_painted_per_s / pictures),
        total_cpu_ms_per_frame: round(total / Math.max(run.frames_painted_per_s, 0.01)),
      };
    };
    const until = async (page: CdpPage, expression: string, what: string) => {
      const deadline = Date.now() + READY_TIMEOUT_MS;
      while (!(await page.evaluate<boolean>(expression).catch(() => false))) {
        if (Date.now() > deadline) throw new Error(`${what} never happened.\n${stack.output()}`);
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
    };

    options.log(`bench: tiles: Chromium, the fleet page with ${String(n)} tiles…`);
    const fleet = await browser.newPage(new URL('/fleet', stack.url).toString(), {
      initScript: COUNT_TUNNEL,
      width: 1280,
      height: 800,
      cookies,
    });
    await until(fleet, TILES_PAINTED(n), `all ${String(n)} tiles painted`);
    const tiles = await measure([fleet], n);
    const ids = await desktopIds();
    await fleet.close();

    options.log(`bench: tiles: Chromium, ${String(n)} full viewers…`);
    const viewers: CdpPage[] = [];
    try {
      for (const id of ids) {
        const page = await browser.newPage(
          new URL(`/?desktop=${encodeURIComponent(id)}`, stack.url).toString(),
          {
            initScript: COUNT_TUNNEL,
            width: options.size.width,
            height: options.size.height + 60,
            cookies,
            newWindow: true,
          },
        );
        viewers.push(page);
        await until(page, VIEWER_CONNECTED, `the viewer of ${id} connected`);
      }
      const full = await measure(viewers, n);
      // One full viewer painting every change costs at least this (its measured CPU per frame);
      // when the viewers kept up, what they measured.
      const keepingUp = Math.max(
        full.total_cpu_ms_per_s / n,
        full.total_cpu_ms_per_frame * options.desktopChangesPerS,
      );
      return {
        tiles,
        full,
        desktop_changes_per_s: options.desktopChangesPerS,
        tiles_in_full_viewers_cpu: round(tiles.total_cpu_ms_per_s / (full.total_cpu_ms_per_s / n)),
        tiles_in_full_viewers_cpu_keeping_up: round(tiles.total_cpu_ms_per_s / keepingUp),
        tiles_in_full_viewers_bytes: round(
          tiles.tunnel_bytes_per_s / (full.tunnel_bytes_per_s / n),
        ),
      };
    } finally {
      await Promise.all(viewers.map((p) => p.close().catch(() => undefined)));
    }
  } finally {
    await browser.close();
    await stack.stop();
  }
}

function round(value: number): number {
  return Math.round(value * 100) / 100;
}
