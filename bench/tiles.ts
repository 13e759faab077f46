// Fleet tiles against full viewers (issue 21, P13 item 5): what N browsers watching one busy
// desktop cost our gateway — its process CPU (the built `overlay-companion gateway`, its own
// process) and the bytes it sends — when all of them look closely (`full`, like N full viewers)
// and when all of them glance (`glance`, like N unfocused fleet tiles: at most one frame a second
// each). The browsers are plain Guacamole clients in this process that acknowledge every frame
// at once, as a browser that keeps up does; their own decoding is not counted. All N join one
// connection, so encodes are shared between them in both runs: the difference is frames sent.
import { startLocalDesktop, type TcpLocalDesktop } from '@overlay-companion/gateway';
import { ATTENTION_OPCODE } from '@overlay-companion/guac';
import { openUpstream } from '../apps/bridge/src/tunnel/upstream.js';
import { processCpuMs } from './cpu.js';
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
  full: TilesRun;
  glance: TilesRun;
  /** What N glancing tiles cost in full viewers' worth of gateway CPU (the issue: < 3 for 20). */
  tiles_in_full_viewers_cpu: number;
  tiles_in_full_viewers_bytes: number;
}

const PRINTING = 'while :; do date +%s%N; ls -l /usr/bin | head -3; sleep 0.03; done';

export async function benchTiles(options: {
  browsers: number;
  seconds: number;
  log: (line: string) => void;
}): Promise<TilesResults> {
  const desktop: TcpLocalDesktop = await startLocalDesktop({
    windowManager: false,
    rfbTcp: true,
    xterm: { command: ['sh', '-c', PRINTING], geometry: '160x60+0+0' },
  });
  const server = await startServer('ours');
  try {
    await new Promise((resolve) => setTimeout(resolve, 1500));
    const full = await measure('full');
    const glance = await measure('glance');
    const perViewer = (run: TilesRun, key: keyof TilesRun) => run[key] / options.browsers;
    return {
      browsers: options.browsers,
      seconds: options.seconds,
      full,
      glance,
      tiles_in_full_viewers_cpu: round(
        glance.gateway_cpu_ms_per_s / perViewer(full, 'gateway_cpu_ms_per_s'),
      ),
      tiles_in_full_viewers_bytes: round(glance.bytes_per_s / perViewer(full, 'bytes_per_s')),
    };
  } finally {
    await server.stop();
    await desktop.stop();
  }

  async function measure(level: 'full' | 'glance'): Promise<TilesRun> {
    options.log(`bench: tiles: ${options.browsers} browsers at ${level} attention…`);
    const address = { host: '127.0.0.1', port: server.port };
    const open = (select: string) =>
      openUpstream(address, {
        select,
        params: { hostname: desktop.host, port: String(desktop.port) },
        size: { width: 1280, height: 800 },
        timeoutMs: 15_000,
      });
    const first = await open('vnc');
    const browsers = [first];
    for (let i = 1; i < options.browsers; i++) browsers.push(await open(first.connectionId));
    let bytes = 0;
    let frames = 0;
    for (const browser of browsers) {
      browser.socket.on('data', (chunk: Buffer) => (bytes += chunk.length));
      browser.conn.on('instruction', (instruction) => {
        if (instruction.opcode !== 'sync') return;
        frames += 1;
        browser.conn.send('sync', instruction.args[0] ?? '0');
      });
      if (level === 'glance') browser.conn.send(ATTENTION_OPCODE, 'glance');
    }
    await new Promise((resolve) => setTimeout(resolve, 1500));
    const [bytes0, frames0, cpu0, at0] = [bytes, frames, processCpuMs(server.pid), Date.now()];
    await new Promise((resolve) => setTimeout(resolve, options.seconds * 1000));
    const wallS = (Date.now() - at0) / 1000;
    const run: TilesRun = {
      gateway_cpu_ms_per_s: round((processCpuMs(server.pid) - cpu0) / wallS),
      bytes_per_s: Math.round((bytes - bytes0) / wallS),
      frames_per_s_each: round((frames - frames0) / wallS / options.browsers),
    };
    for (const browser of browsers) {
      browser.conn.send('disconnect');
      browser.conn.close();
    }
    await new Promise((resolve) => setTimeout(resolve, 500));
    return run;
  }
}

function round(value: number): number {
  return Math.round(value * 100) / 100;
}
