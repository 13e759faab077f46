// The desktop the streaming bench shows through each server: a real Xvnc (loopback TCP, since
// guacd cannot use a Unix socket) that refuses SetDesktopSize, so neither server can resize it
// to the browser, and no window manager, so windows sit exactly where they are placed. On it:
//   - a full-screen xterm whose text scrolls while a control file exists: a few long lines of
//     words every 20 ms (a steady heavy change, the same for both servers whatever they cost),
//   - a small probe xterm on top whose background colour changes on request (a ~70×50 px
//     repaint), for the change-to-paint latency.
import { execFile } from 'node:child_process';
import { mkdtemp, open, rm, writeFile, type FileHandle } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { startLocalDesktop, type TcpLocalDesktop } from '@overlay-companion/gateway';
import { mappedWindowRect, type XRect } from './xWindow.js';

const run = promisify(execFile);

/** Lines printed per burst and the pause between bursts: 150 lines a second. */
export const SCROLL = { linesPerBurst: 3, burstMs: 20 } as const;
/** The xterm's font cell in pixels (DejaVu Sans Mono 11 at 96 dpi). */
const CELL = { width: 8, height: 17 };

export interface StreamDesktop {
  desktop: TcpLocalDesktop;
  /** The centre of the probe xterm, where its colour is read in the browser. */
  probe: { x: number; y: number };
  /** Where the pointer is parked (off both windows). */
  pointer: { x: number; y: number };
  /** Sets the probe's background colour (e.g. '#ff0000'). */
  paintProbe(colour: string): Promise<void>;
  /** Starts or stops the full-screen scrolling. */
  scroll(on: boolean): Promise<void>;
  stop(): Promise<void>;
}

export async function startStreamDesktop(width: number, height: number): Promise<StreamDesktop> {
  const dir = await mkdtemp(join(tmpdir(), 'oc-bench-stream-'));
  const desktop = await startLocalDesktop({
    width,
    height,
    rfbTcp: true,
    windowManager: false,
    extraArgs: ['-AcceptSetDesktopSize=0'],
  });
  let fifo: FileHandle | undefined;
  try {
    const runFile = join(dir, 'run');
    const cols = Math.floor(width / CELL.width);
    const rows = Math.floor(height / CELL.height);
    desktop.spawnClient('xterm', [
      ...XTERM_LOOK,
      '-T',
      'oc-scroll',
      '-geometry',
      `${String(cols)}x${String(rows)}+0+0`,
      '-e',
      'perl',
      '-e',
      scrollScript(runFile, cols - 2),
    ]);
    await mappedWindowRect(desktop.env, 'oc-scroll', 'The scrolling xterm');

    const colours = join(dir, 'colours');
    await run('mkfifo', [colours]);
    desktop.spawnClient('xterm', [
      ...XTERM_LOOK,
      '-T',
      'oc-probe',
      '-geometry',
      `10x3+${String(width - 200)}+${String(height - 120)}`,
      '-e',
      'sh',
      '-c',
      `exec 3<>${colours}; while read c <&3; do printf '\\033]11;%s\\007' "$c"; done`,
    ]);
    const rect: XRect = await mappedWindowRect(desktop.env, 'oc-probe', 'The probe xterm');
    fifo = await open(colours, 'r+');
    const writer = fifo;
    // Keep the pointer off both windows so no cursor is drawn into the pixels read.
    const pointer = { x: 0, y: height - 1 };
    await run('xdotool', ['mousemove', String(pointer.x), String(pointer.y)], {
      env: desktop.env,
    });
    return {
      desktop,
      probe: {
        x: rect.x + Math.floor(rect.width / 2),
        y: rect.y + Math.floor(rect.height / 2),
      },
      pointer,
      paintProbe: async (colour) => {
        await writer.write(`${colour}\n`);
      },
      scroll: async (on) => {
        if (on) await writeFile(runFile, '');
        else await rm(runFile, { force: true });
      },
      stop: async () => {
        await writer.close().catch(() => undefined);
        await desktop.stop();
        await rm(dir, { recursive: true, force: true });
      },
    };
  } catch (err) {
    await fifo?.close().catch(() => undefined);
    await desktop.stop();
    await rm(dir, { recursive: true, force: true });
    throw err;
  }
}

const XTERM_LOOK = ['-fa', 'DejaVu Sans Mono', '-fs', '11', '-xrm', 'XTerm*waitForWM: false'];

/**
 * Perl for the scrolling xterm: while `runFile` exists, prints SCROLL.linesPerBurst lines of
 * words (each line different, about `width` characters) every SCROLL.burstMs; otherwise idles.
 */
function scrollScript(runFile: string, width: number): string {
  return `$| = 1;
my @w = qw(alpha beta gamma delta epsilon zeta eta theta iota kappa lambda mu nu xi omicron pi rho sigma tau upsilon phi chi psi omega);
my $n = 0;
while (1) {
  if (-e '${runFile}') {
    for (1 .. ${String(SCROLL.linesPerBurst)}) {
      $n++;
      my $s = sprintf('%08d', $n);
      $s .= ' ' . $w[($n * 7 + length($s)) % @w] while length($s) < ${String(width - 10)};
      print "$s\\n";
    }
    select(undef, undef, undef, ${String(SCROLL.burstMs / 1000)});
  } else {
    select(undef, undef, undef, 0.05);
  }
}`;
}
