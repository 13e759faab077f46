// Fleet tiles against full viewers (issue 21, P13 item 5): what N browsers watching one busy
// desktop cost our gateway — its process CPU (the built `overlay-companion gateway`, its own
// process, encode workers included) and the bytes it sends — when all of them look closely
// (`full`, like N full viewers), when all of them glance (`glance`, like N hidden viewer tabs: at
// most one frame a second each) and as `thumbnail`s (N unfocused fleet tiles: a glance whose
// frames are the screen scaled down to a tile's size at the gateway). The browsers are plain Guacamole clients in this process that acknowledge every frame
// at once, as a browser that keeps up does; their own decoding is not counted.
// - one desktop: all N join one connection, so encodes are shared between them in every run (the
//   difference is frames sent), and one full viewer costs a twentieth of shared work.
// - N desktops (what the issue asks: twenty tiles of twenty desktops against twenty full
//   viewers): N small desktops (SMALL_DESKTOP, each an xterm printing), one browser on each, first
//   all at full attention, then all as thumbnails. Nothing is shared between them, as between a
//   person's agents' desktops. Then the same desktops behind a bridge, in Chromium: the fleet
//   page's tiles against N full viewers, with Chromium's, the bridge's and the gateway's CPU
//   (tilesChromium.ts). That is the comparison the target is read from (everything a
//   person's tiles cost on their machine and the server's); the gateway's alone cannot meet it by
//   construction — both runs pay for decoding the same N desktops' updates, which is most of a
//   full viewer's share of the gateway — and is reported beside it.
import { startLocalDesktop, type TcpLocalDesktop } from '@overlay-companion/gateway';
import { ATTENTION_OPCODE, type AttentionLevel } from '@overlay-companion/guac';
import { openUpstream } from '../apps/bridge/src/tunnel/upstream.js';
import { processCpuMs } from './cpu.js';
import { attempt, ok, type Failed } from './failSoft.js';
import { benchTilesChromium, type ChromiumTiles } from './tilesChromium.js';
import { startServer } from './streamServers.js';

export interface TilesRun {
  /** The gateway's CPU, milliseconds per second of wall time. */
  gateway_cpu_ms_per_s: number;
  /** Bytes the gateway sent all N browsers, per second. */
  bytes_per_s: number;
  /** Frames each browser received per second (mean). */
  frames_per_s_each: number;
}

export interface TilesResults {
  browsers: number;
  seconds: number;
  /** N browsers on one desktop, sharing its encodes. */
  one_desktop: { full: TilesRun; glance: TilesRun; thumbnail: TilesRun };
  /**
   * One browser on each of N desktops; `chromium`: the same desktops behind a bridge, watched
   * from Chromium as the fleet page's tiles and as N full viewers (tilesChromium.ts).
   */
  many_desktops: {
    width: number;
    height: number;
    full: TilesRun;
    thumbnail: TilesRun;
    chromium: ChromiumTiles | Failed;
  };
  /**
   * What N thumbnail tiles of N desktops cost in full viewers' worth of CPU (the issue: < 3 for
   * 20): Chromium's, the bridge's and the gateway's (many_desktops.chromium), or the gateway's
   * alone when the Chromium run failed (`tiles_in_full_viewers_cpu_from` says which).
   */
  tiles_in_full_viewers_cpu: number;
  tiles_in_full_viewers_cpu_from: 'chromium' | 'gateway_only';
  /** The gateway's CPU alone (many_desktops' full and thumbnail runs). */
  gateway_only_tiles_in_full_viewers_cpu: number;
  tiles_in_full_viewers_bytes: number;
}

const PRINTING = 'while :; do date +%s%N; ls -l /usr/bin | head -3; sleep 0.03; done';
/** Each of the N desktops: small, as an agent's desktop in a fleet would be. */
const SMALL_DESKTOP = { width: 640, height: 400 };
/** What each of the N desktops' xterms prints: a line ten times a second, an agent at work. */
const WORKING = 'while :; do date +%s%N; sleep 0.1; done';
/** How often WORKING changes its desktop (each line scrolls the xterm once it is full). */
const WORKING_CHANGES_PER_S = 10;

interface Target {
  host: string;
  port: number;
}

export async function benchTiles(options: {
  browsers: number;
  seconds: number;
  log: (line: string) => void;
}): Promise<TilesResults> {
  const server = await startServer('ours');
  try {
    const one = await oneDesktop(options, server);
    const many = await manyDesktops(options, server);
    const perViewer = (run: TilesRun, key: keyof TilesRun) => run[key] / options.browsers;
    const gatewayOnly = round(
      many.thumbnail.gateway_cpu_ms_per_s / perViewer(many.full, 'gateway_cpu_ms_per_s'),
    );
    const chromium = ok(many.chromium);
    return {
      browsers: options.browsers,
      seconds: options.seconds,
      one_desktop: one,
      many_desktops: many,
      tiles_in_full_viewers_cpu: chromium?.tiles_in_full_viewers_cpu ?? gatewayOnly,
      tiles_in_full_viewers_cpu_from: chromium === undefined ? 'gateway_only' : 'chromium',
      gateway_only_tiles_in_full_viewers_cpu: gatewayOnly,
      tiles_in_full_viewers_bytes: round(
        many.thumbnail.bytes_per_s / perViewer(many.full, 'bytes_per_s'),
      ),
    };
  } finally {
    await server.stop();
  }
}

type Options = Parameters<typeof benchTiles>[0];
type Server = Awaited<ReturnType<typeof startServer>>;

async function oneDesktop(options: Options, server: Server): Promise<TilesResults['one_desktop']> {
  const desktop: TcpLocalDesktop = await startLocalDesktop({
    windowManager: false,
    rfbTcp: true,
    xterm: { command: ['sh', '-c', PRINTING], geometry: '160x60+0+0' },
  });
  try {
    await settle(1500);
    const targets = Array.from({ length: options.browsers }, () => desktop);
    const measure = (level: AttentionLevel) =>
      measureRun(options, server, targets, level, { width: 1280, height: 800 }, true);
    return {
      full: await measure('full'),
      glance: await measure('glance'),
      thumbnail: await measure('thumbnail'),
    };
  } finally {
    await desktop.stop();
  }
}

async function manyDesktops(
  options: Options,
  server: Server,
): Promise<TilesResults['many_desktops']> {
  options.log(`bench: tiles: starting ${options.browsers} small desktops…`);
  const desktops: TcpLocalDesktop[] = [];
  try {
    for (let i = 0; i < options.browsers; i++) {
      desktops.push(
        await startLocalDesktop({
          ...SMALL_DESKTOP,
          windowManager: false,
          rfbTcp: true,
          xterm: { command: ['sh', '-c', WORKING], geometry: '80x24+0+0' },
        }),
      );
    }
    await settle(1500);
    const measure = (level: AttentionLevel) =>
      measureRun(options, server, desktops, level, SMALL_DESKTOP, false);
    const full = await measure('full');
    const thumbnail = await measure('thumbnail');
    const chromium = await attempt('bench: tiles: Chromium', options.log, () =>
      benchTilesChromium({
        desktops,
        size: SMALL_DESKTOP,
        desktopChangesPerS: WORKING_CHANGES_PER_S,
        gateway: { port: server.port, pid: server.pid },
        seconds: options.seconds,
        log: options.log,
      }),
    );
    return { ...SMALL_DESKTOP, full, thumbnail, chromium };
  } finally {
    await Promise.all(desktops.map((d) => d.stop()));
  }
}

/**
 * One browser per target (the first on a target opens its connection, later ones join it when
 * `join`), all at `level`, measured over `options.seconds`.
 */
async function measureRun(
  options: Options,
  server: Server,
  targets: readonly Target[],
  level: AttentionLevel,
  size: { width: number; height: number },
  join: boolean,
): Promise<TilesRun> {
  const distinct = new Set(targets).size;
  options.log(
    `bench: tiles: ${String(targets.length)} browsers on ${String(distinct)} desktop(s) at ${level} attention…`,
  );
  const address = { host: '127.0.0.1', port: server.port };
  const open = (select: string, target: Target) =>
    openUpstream(address, {
      select,
      params: { hostname: target.host, port: String(target.port) },
      size,
      timeoutMs: 15_000,
    });
  const browsers: Awaited<ReturnType<typeof open>>[] = [];
  const connections = new Map<Target, string>();
  for (const target of targets) {
    const existing = join ? connections.get(target) : undefined;
    const browser = await open(existing ?? 'vnc', target);
    connections.set(target, existing ?? browser.connectionId);
    browsers.push(browser);
  }
  let bytes = 0;
  let frames = 0;
  for (const browser of browsers) {
    browser.socket.on('data', (chunk: Buffer) => (bytes += chunk.length));
    browser.conn.on('instruction', (instruction) => {
      if (instruction.opcode !== 'sync') return;
      frames += 1;
      browser.conn.send('sync', instruction.args[0] ?? '0');
    });
    if (level !== 'full') browser.conn.send(ATTENTION_OPCODE, level);
  }
  await settle(1500);
  const [bytes0, frames0, cpu0, at0] = [bytes, frames, processCpuMs(server.pid), Date.now()];
  await settle(options.seconds * 1000);
  const wallS = (Date.now() - at0) / 1000;
  const run: TilesRun = {
    gateway_cpu_ms_per_s: round((processCpuMs(server.pid) - cpu0) / wallS),
    bytes_per_s: Math.round((bytes - bytes0) / wallS),
    frames_per_s_each: round((frames - frames0) / wallS / browsers.length),
  };
  for (const browser of browsers) {
    browser.conn.send('disconnect');
    browser.conn.close();
  }
  await settle(500);
  return run;
}

function settle(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

function round(value: number): number {
  return Math.round(value * 100) / 100;
}
