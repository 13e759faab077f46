// `--only recording`: what recording a desktop costs on the heavy-scroll workload (the stream
// bench's: a full-screen 1280×800 xterm printing text steadily, streamed by our gateway through
// the built bridge to its viewer in headless Chromium) — the same run with the bridge recording
// (`serve --record`: the bridge joins the connection as one more user and writes the recording,
// its keyframes, index and event track) and without, alternating, each `runs` times: frames
// painted per second in the browser, CPU seconds per second of the gateway and the bridge (each
// process tree, from the scroll's start until the bridge is idle again — so any work the recorder
// leaves for after the scroll counts too (a recorder that once caught up with the file when the
// desktop was still; today's writes its reference keyframes as they fall due); the window's own
// CPU is reported beside it), and the recording's bytes per
// second (all four files) as bytes per hour. Chromium's CPU (the viewer) is not counted (the
// recorder adds no work there; what it could change, the frames, is measured).
// Targets (issue 20): at most 5 % fewer frames and 10 % more CPU with recording. Reported, never
// asserted. And seeking: a one-hour office session (a 1280×800 desktop, a line of text typed every
// second, a window redrawn every ten, a screenful every five minutes) written by the real writer
// on a fast clock (its keyframes reference keyframes: the file's draws), then the picture
// at the middle asked of the reader, as the player's thumbnails and the export do (target 500 ms);
// and, after each recorded scroll, the picture at the scroll's end asked of that recording: a
// seek that replays the whole scroll from the keyframe before it; then that recording exported
// as video (recordingExport.ts; target at least 4× real time).
import { mkdtemp, readdir, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { GuacInstruction } from '@overlay-companion/guac';
import { RecordingReader, RecordingWriter } from '@overlay-companion/recording';
import sharp from 'sharp';
import { launchCdpBrowser } from './cdpBrowser.js';
import { exportSpeed } from './recordingExport.js';
import { summarize } from './stats.js';
import { treeCpuMs } from './streamCpu.js';
import { SCROLL, startStreamDesktop } from './streamDesktop.js';
import { startServer } from './streamServers.js';
import { openStreamViewer } from './streamViewer.js';

const WIDTH = 1280;
const HEIGHT = 800;

export interface RecordingRun {
  recording: boolean;
  seconds: number;
  frames_per_s: number;
  /**
   * CPU seconds per second of scrolling: the gateway's tree, the bridge's tree, and both, from
   * the scroll's start until the bridge is idle after it (the recorder's deferred catch-up
   * included).
   */
  gateway_cpu_s_per_s: number;
  bridge_cpu_s_per_s: number;
  cpu_s_per_s: number;
  /** The same within the measuring window only (what the bench reported before: no catch-up). */
  window_gateway_cpu_s_per_s: number;
  window_bridge_cpu_s_per_s: number;
  /** Bytes the recording's files grew by per second (0 without recording). */
  recording_bytes_per_s: number;
  /**
   * With recording: the reader's picture at the scroll's end (the median of 3), asked of the
   * recording being made once the bridge is idle — a seek that replays the whole scroll from the
   * keyframe before it (keyframes come at most every 15 s), as a timeline thumbnail does.
   */
  scroll_end_seek_ms?: number;
  /**
   * With recording: that recording exported as video, times real time — as WebM, and as MP4
   * (what the recordings page offers; the target's) — recordingExport.ts.
   */
  export_times_real_time?: number;
  export_mp4_times_real_time?: number;
}

export interface RecordingResults {
  workload: string;
  runs: RecordingRun[];
  /** Means of the runs without and with recording. */
  without: Omit<RecordingRun, 'recording' | 'seconds'>;
  with: Omit<RecordingRun, 'recording' | 'seconds'>;
  /** With / without, minus one: -0.03 is 3 % fewer frames, 0.08 is 8 % more CPU. */
  frames_change: number;
  cpu_change: number;
  heavy_scroll_recording_bytes_per_hour: number;
  seek: SeekResults;
  targets: Record<string, { target: string; measured: number; met: boolean }>;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const round = (value: number, digits = 3) => Math.round(value * 10 ** digits) / 10 ** digits;

/** The bridge's recordings folder, from its command line (`--data-dir`). */
async function recordingsDir(pid: number): Promise<string> {
  const args = (await readFile(`/proc/${String(pid)}/cmdline`, 'utf8')).split('\0');
  return join(args[args.indexOf('--data-dir') + 1] ?? '', 'recordings');
}

async function dirBytes(dir: string): Promise<number> {
  const names = await readdir(dir).catch(() => [] as string[]);
  const sizes = await Promise.all(
    names.map((n) =>
      stat(join(dir, n)).then(
        (s) => s.size,
        () => 0,
      ),
    ),
  );
  return sizes.reduce((a, b) => a + b, 0);
}

/**
 * Resolves once `pid`'s tree has been idle (under 10 ms of CPU in half a second) after at least
 * two seconds (whatever the recorder does once the desktop is still), or after 20 s whatever
 * happens.
 */
async function settled(pid: number): Promise<void> {
  const start = performance.now();
  await sleep(2000);
  let last = treeCpuMs(pid);
  while (performance.now() - start < 20_000) {
    await sleep(500);
    const now = treeCpuMs(pid);
    if (now - last < 10) return;
    last = now;
  }
}

/** The one recording in `dir` (still being made) exported as video: times real time. */
async function exportRecording(
  dir: string,
  format: Parameters<typeof exportSpeed>[2],
  log: (line: string) => void,
): Promise<number> {
  const names = await readdir(dir);
  const id = names.find((n) => n.endsWith('.guac'))?.slice(0, -'.guac'.length);
  if (id === undefined) return Number.NaN;
  const speed = await exportSpeed(dir, id, format);
  log(
    `bench: recording: exported ${String(speed.video_ms)} ms of heavy scrolling as ${format} in ${String(speed.elapsed_ms)} ms (${String(speed.times_real_time)}× real time)`,
  );
  return speed.times_real_time;
}

/** The reader's picture at `t` of the one recording in `dir` (still being made): median of 3, ms. */
async function seekScrollEnd(dir: string, t: number): Promise<number> {
  const names = await readdir(dir);
  const id = names.find((n) => n.endsWith('.guac'))?.slice(0, -'.guac'.length);
  if (id === undefined) return Number.NaN;
  const samples: number[] = [];
  for (let i = 0; i < 3; i++) {
    const reader = await RecordingReader.open(dir, id);
    const start = performance.now();
    await reader.pictureAt(t);
    samples.push(performance.now() - start);
  }
  return round([...samples].sort((a, b) => a - b)[1] ?? Number.NaN, 1);
}

export interface SeekResults {
  workload: string;
  recording_bytes: number;
  keyframes: number;
  /** CPU time the writer took while the hour was fed (its keyframes included), and at close. */
  feed_cpu_ms: number;
  close_cpu_ms: number;
  /** The reader's picture at the middle of the hour: each sample, and their median. */
  seek_middle_ms: number[];
  seek_middle_median_ms: number;
}

/** A PNG of `width`×`height` text-like pixels (light glyph dots on a dark ground), seeded. */
async function textPng(width: number, height: number, seed: number): Promise<string> {
  const raw = Buffer.alloc(width * height * 3, 24);
  let x = seed * 2654435761;
  for (let i = 0; i < raw.length; i += 3) {
    x = (x * 1103515245 + 12345) >>> 0;
    if (x % 7 === 0) raw.fill(220, i, i + 3);
  }
  const png = await sharp(raw, { raw: { width, height, channels: 3 } })
    .png()
    .toBuffer();
  return png.toString('base64');
}

function image(stream: number, x: number, y: number, base64: string): GuacInstruction[] {
  const out: GuacInstruction[] = [
    { opcode: 'img', args: [String(stream), '14', '0', 'image/png', String(x), String(y)] },
  ];
  for (let o = 0; o < base64.length; o += 8064)
    out.push({ opcode: 'blob', args: [String(stream), base64.slice(o, o + 8064)] });
  out.push({ opcode: 'end', args: [String(stream)] });
  return out;
}

export async function benchSeek(log: (line: string) => void): Promise<SeekResults> {
  log('bench: recording: writing a one-hour office session, then seeking to its middle…');
  const dir = await mkdtemp(join(tmpdir(), 'oc-bench-seek-'));
  try {
    const lines = await Promise.all(Array.from({ length: 16 }, (_, i) => textPng(400, 16, i)));
    const windows = await Promise.all(
      Array.from({ length: 4 }, (_, i) => textPng(640, 420, 100 + i)),
    );
    const screens = await Promise.all(
      Array.from({ length: 2 }, (_, i) => textPng(WIDTH, HEIGHT, 200 + i)),
    );
    const writer = await RecordingWriter.create({ dir });
    const t0 = Date.now() - 3_600_000;
    const cpu0 = process.cpuUsage();
    writer.feed({ opcode: 'size', args: ['0', String(WIDTH), String(HEIGHT)] }, t0);
    for (let s = 0; s < 3600; s++) {
      const t = t0 + s * 1000;
      const frame: GuacInstruction[] = [];
      if (s % 300 === 0) frame.push(...image(1, 0, 0, screens[(s / 300) % screens.length] ?? ''));
      else if (s % 10 === 0)
        frame.push(...image(1, 320, 190, windows[(s / 10) % windows.length] ?? ''));
      frame.push(...image(2, 340, 200 + (s % 24) * 16, lines[s % lines.length] ?? ''));
      frame.push({ opcode: 'sync', args: [String(t)] });
      for (const instruction of frame) writer.feed(instruction, t);
      // The disk keeps up, as in an hour of real time.
      if (s % 20 === 0) await writer.idle();
    }
    await writer.idle();
    const fed = process.cpuUsage(cpu0);
    const summary = await writer.close();
    const closed = process.cpuUsage(cpu0);
    const reader = await RecordingReader.open(dir, summary.id);
    const middle = (reader.start + reader.end) / 2;
    const samples: number[] = [];
    for (let i = 0; i < 5; i++) {
      const again = await RecordingReader.open(dir, summary.id);
      const start = performance.now();
      await again.pictureAt(middle + i * 1000);
      samples.push(round(performance.now() - start, 1));
    }
    const cpuMs = (u: NodeJS.CpuUsage) => Math.round((u.user + u.system) / 1000);
    return {
      workload: `one hour at ${String(WIDTH)}x${String(HEIGHT)}: a 400x16 line of text every second, a 640x420 window every 10 s, the whole screen every 5 min`,
      recording_bytes: summary.bytes,
      keyframes: summary.keyframes,
      feed_cpu_ms: cpuMs(fed),
      close_cpu_ms: cpuMs(closed) - cpuMs(fed),
      seek_middle_ms: samples,
      seek_middle_median_ms: [...samples].sort((a, b) => a - b)[2] ?? 0,
    };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

export async function benchRecording(options: {
  heavySeconds: number;
  runs: number;
  log: (line: string) => void;
}): Promise<RecordingResults> {
  const browser = await launchCdpBrowser();
  const desktop = await startStreamDesktop(WIDTH, HEIGHT);
  const server = await startServer('ours');
  const runs: RecordingRun[] = [];
  try {
    const measure = async (recording: boolean): Promise<RecordingRun> => {
      options.log(`bench: recording: heavy scrolling ${recording ? 'with' : 'without'} recording…`);
      const viewer = await openStreamViewer(browser, {
        guacdPort: server.port,
        vncPort: desktop.desktop.port,
        width: WIDTH,
        height: HEIGHT,
        flags: recording ? ['--record'] : [],
      });
      try {
        const dir = await recordingsDir(viewer.stack.pid);
        await sleep(1500); // first frames; the recording joins and writes its first keyframe
        const gatewayStart = treeCpuMs(server.pid);
        const bridgeStart = treeCpuMs(viewer.stack.pid);
        const scrollStart = performance.now();
        await desktop.scroll(true);
        await sleep(1500); // the steady state
        const before = await viewer.counters();
        const gatewayBefore = treeCpuMs(server.pid);
        const bridgeBefore = treeCpuMs(viewer.stack.pid);
        const bytesBefore = await dirBytes(dir);
        const start = performance.now();
        await sleep(options.heavySeconds * 1000);
        const after = await viewer.counters();
        const gatewayAfter = treeCpuMs(server.pid);
        const bridgeAfter = treeCpuMs(viewer.stack.pid);
        const bytesAfter = await dirBytes(dir);
        const seconds = (performance.now() - start) / 1000;
        await desktop.scroll(false);
        const scrollEndEpoch = Date.now();
        const scrollSeconds = (performance.now() - scrollStart) / 1000;
        // Work the recorder leaves for after the scroll is the scrolling's cost too, so the CPU
        // counted is all the processes spent from the scroll's start until the bridge is idle
        // again, per second of scrolling (the same for both runs).
        await settled(viewer.stack.pid);
        const gatewayEnd = treeCpuMs(server.pid);
        const bridgeEnd = treeCpuMs(viewer.stack.pid);
        const seekMs = recording ? await seekScrollEnd(dir, scrollEndEpoch) : undefined;
        const webm = recording ? await exportRecording(dir, 'webm', options.log) : undefined;
        const mp4 = recording ? await exportRecording(dir, 'mp4', options.log) : undefined;
        const gateway = (gatewayEnd - gatewayStart) / 1000 / scrollSeconds;
        const bridge = (bridgeEnd - bridgeStart) / 1000 / scrollSeconds;
        return {
          recording,
          seconds: round(seconds, 2),
          frames_per_s: round((after.framesPainted - before.framesPainted) / seconds, 1),
          gateway_cpu_s_per_s: round(gateway),
          bridge_cpu_s_per_s: round(bridge),
          cpu_s_per_s: round(gateway + bridge),
          window_gateway_cpu_s_per_s: round((gatewayAfter - gatewayBefore) / 1000 / seconds),
          window_bridge_cpu_s_per_s: round((bridgeAfter - bridgeBefore) / 1000 / seconds),
          recording_bytes_per_s: Math.round((bytesAfter - bytesBefore) / seconds),
          ...(seekMs === undefined ? {} : { scroll_end_seek_ms: seekMs }),
          ...(webm === undefined ? {} : { export_times_real_time: webm }),
          ...(mp4 === undefined ? {} : { export_mp4_times_real_time: mp4 }),
        };
      } finally {
        await viewer.stop();
      }
    };
    // Alternating, so a change in the machine's load falls on both alike.
    for (let i = 0; i < options.runs; i++) {
      runs.push(await measure(false));
      runs.push(await measure(true));
    }
  } finally {
    await server.stop();
    await desktop.stop();
    await browser.close();
  }
  const summary = (recording: boolean) => {
    const of = runs.filter((r) => r.recording === recording);
    const m = (pick: (r: RecordingRun) => number) => round(summarize(of.map(pick)).mean);
    return {
      frames_per_s: m((r) => r.frames_per_s),
      gateway_cpu_s_per_s: m((r) => r.gateway_cpu_s_per_s),
      bridge_cpu_s_per_s: m((r) => r.bridge_cpu_s_per_s),
      cpu_s_per_s: m((r) => r.cpu_s_per_s),
      window_gateway_cpu_s_per_s: m((r) => r.window_gateway_cpu_s_per_s),
      window_bridge_cpu_s_per_s: m((r) => r.window_bridge_cpu_s_per_s),
      recording_bytes_per_s: m((r) => r.recording_bytes_per_s),
      ...(recording
        ? {
            scroll_end_seek_ms: m((r) => r.scroll_end_seek_ms ?? Number.NaN),
            export_times_real_time: m((r) => r.export_times_real_time ?? Number.NaN),
            export_mp4_times_real_time: m((r) => r.export_mp4_times_real_time ?? Number.NaN),
          }
        : {}),
    };
  };
  const seek = await benchSeek(options.log);
  const without = summary(false);
  const withRecording = summary(true);
  const framesChange = round(withRecording.frames_per_s / without.frames_per_s - 1);
  const cpuChange = round(withRecording.cpu_s_per_s / without.cpu_s_per_s - 1);
  // The target is the recordings page's export (MP4); WebM is reported beside it.
  const exportTimes = withRecording.export_mp4_times_real_time ?? Number.NaN;
  return {
    workload: `full-screen ${String(WIDTH)}x${String(HEIGHT)} xterm printing ${String(SCROLL.linesPerBurst)} lines every ${String(SCROLL.burstMs)} ms, our gateway, the built bridge and its viewer in headless Chromium`,
    runs,
    without,
    with: withRecording,
    frames_change: framesChange,
    cpu_change: cpuChange,
    heavy_scroll_recording_bytes_per_hour: Math.round(withRecording.recording_bytes_per_s * 3600),
    seek,
    targets: {
      recording_frames_change: {
        target: '>= -0.05',
        measured: framesChange,
        met: framesChange >= -0.05,
      },
      recording_cpu_change: { target: '<= 0.10', measured: cpuChange, met: cpuChange <= 0.1 },
      recording_export_mp4_times_real_time: {
        target: '>= 4',
        measured: exportTimes,
        met: exportTimes >= 4,
      },
      recording_seek_middle_of_hour_ms: {
        target: '<= 500',
        measured: seek.seek_middle_median_ms,
        met: seek.seek_middle_median_ms <= 500,
      },
    },
  };
}
