// Benchmark for @overlay-companion/recording: synthesizes a one-hour office session at 1280×800
// (a typing update every 0.5 s, a scroll every 10 s, a window every 30 s, as our gateway sends
// them) through the real RecordingWriter with virtual timestamps, then measures the seek to the
// middle (open + picture, cold, median of runs), the writer's CPU per frame and bytes per hour,
// and the video export's speed on a two-minute session. Prints one JSON object.
//   npx tsx --conditions=overlay-source packages/recording/bench/seek.ts [--minutes 60] [--runs 5]
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import type { GuacInstruction } from '@overlay-companion/guac';
import { RecordingReader, RecordingWriter } from '../src/index.js';
import { exportVideo } from '../src/export.js';

const W = 1280;
const H = 800;
const arg = (name: string, fallback: number): number => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? Number(process.argv[i + 1]) : fallback;
};
const minutes = arg('minutes', 60);
const runs = arg('runs', 5);

const ins = (opcode: string, ...args: (string | number)[]): GuacInstruction => ({
  opcode,
  args: args.map(String),
});

/** A picture like a desktop's: flat areas with blocks of "text" in them. */
async function pictureLike(width: number, height: number, seed: number): Promise<Buffer> {
  const raw = Buffer.alloc(width * height * 3, 235);
  let s = seed * 2654435761;
  const rnd = (): number => ((s = (s * 1103515245 + 12345) >>> 0) >>> 8) / 0x1000000;
  for (let line = 4; line + 12 < height; line += 18) {
    for (let x = 6; x < width - 10; x += 7) {
      if (rnd() < 0.15) continue;
      const h = 5 + Math.floor(rnd() * 7);
      for (let y = line; y < line + h; y++)
        for (let dx = 0; dx < 5; dx++)
          raw.fill(
            40 + Math.floor(rnd() * 30),
            (y * width + x + dx) * 3,
            (y * width + x + dx) * 3 + 3,
          );
    }
  }
  return sharp(raw, { raw: { width, height, channels: 3 } })
    .png({ compressionLevel: 6 })
    .toBuffer();
}

function image(stream: number, x: number, y: number, png: Buffer): GuacInstruction[] {
  const out = [ins('img', stream, 14, 0, 'image/png', x, y)];
  for (let o = 0; o < png.length; o += 6048)
    out.push(ins('blob', stream, png.subarray(o, o + 6048).toString('base64')));
  out.push(ins('end', stream));
  return out;
}

async function synthesize(dir: string, durationMs: number, t0: number) {
  const typing = await Promise.all(
    Array.from({ length: 12 }, (_, i) => pictureLike(240, 18, i + 1)),
  );
  const windows = await Promise.all(
    Array.from({ length: 3 }, (_, i) => pictureLike(640, 420, i + 50)),
  );
  const wallpaper = await pictureLike(W, H, 99);
  const writer = await RecordingWriter.create({ dir });
  let frames = 0;
  const frame = (t: number, instructions: GuacInstruction[]): void => {
    for (const i of instructions) writer.feed(i, t);
    writer.feed(ins('sync', t, 1), t);
    frames++;
  };
  const cpu = process.cpuUsage();
  const wall = performance.now();
  frame(t0, [ins('size', 0, W, H), ins('size', -2, W, H), ...image(1, 0, 0, wallpaper)]);
  for (let t = 500, n = 0; t <= durationMs; t += 500, n++) {
    const out: GuacInstruction[] = [];
    out.push(...image(2, 40 + (n % 4) * 240, 60 + (n % 40) * 18, typing[n % typing.length]!));
    if (t % 10_000 === 0) {
      out.push(ins('copy', 0, 0, 120, W, H - 120, 14, -2, 0, 120));
      out.push(ins('copy', -2, 0, 120, W, H - 120, 14, 0, 0, 100));
      out.push(ins('rect', 0, 0, H - 20, W, 20), ins('cfill', 14, 0, 235, 235, 235, 255));
    }
    if (t % 30_000 === 0)
      out.push(...image(3, 200 + (n % 5) * 60, 100 + (n % 3) * 40, windows[n % 3]!));
    frame(t0 + t, out);
    if (t % 60_000 === 0) await writer.idle();
  }
  const summary = await writer.close();
  const used = process.cpuUsage(cpu);
  return {
    summary,
    frames,
    cpuMsPerFrame: (used.user + used.system) / 1000 / frames,
    writeWallMs: performance.now() - wall,
  };
}

const median = (values: number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
};
const round = (n: number, digits = 1): number => Math.round(n * 10 ** digits) / 10 ** digits;

const dir = await mkdtemp(join(tmpdir(), 'oc-rec-bench-'));
try {
  const t0 = 1_700_000_000_000;
  const hour = await synthesize(dir, minutes * 60_000, t0);
  const middle = t0 + (minutes * 60_000) / 2;
  const seeks: number[] = [];
  const opens: number[] = [];
  for (let i = 0; i < runs; i++) {
    const start = performance.now();
    const reader = await RecordingReader.open(dir, hour.summary.id);
    opens.push(performance.now() - start);
    const picture = await reader.pictureAt(middle + i * 1234);
    if (picture.width !== W) throw new Error('seek gave no picture');
    seeks.push(performance.now() - start);
  }
  // The worst case: just before a keyframe, so the whole stretch since the one before replays.
  const worst: number[] = [];
  {
    const reader = await RecordingReader.open(dir, hour.summary.id);
    const after = reader.keyframes.filter((k) => k.t > middle).slice(0, runs);
    for (const k of after) {
      const start = performance.now();
      await (await RecordingReader.open(dir, hour.summary.id)).pictureAt(k.t - 1);
      worst.push(performance.now() - start);
    }
  }
  // Export speed, on two minutes of the same kind of session.
  const short = await synthesize(dir, 120_000, t0);
  const reader = await RecordingReader.open(dir, short.summary.id);
  const video = await exportVideo(reader, join(dir, 'export.mp4'), { fps: 10 });
  const durationH = (hour.summary.end - hour.summary.start) / 3_600_000;
  console.log(
    JSON.stringify(
      {
        recording: {
          minutes,
          resolution: `${W}x${H}`,
          frames: hour.frames,
          bytes: hour.summary.bytes,
          bytesPerHour: Math.round(hour.summary.bytes / durationH),
          keyframeBytesPerHour: Math.round((await stat(hour.summary.paths.keys)).size / durationH),
          keyframes: hour.summary.keyframes,
          writerCpuMsPerFrame: round(hour.cpuMsPerFrame, 2),
          writeWallMs: Math.round(hour.writeWallMs),
        },
        seekToMiddle: {
          runs,
          medianMs: round(median(seeks)),
          justBeforeAKeyframeMedianMs: round(median(worst)),
          justBeforeAKeyframeMaxMs: round(Math.max(...worst)),
          openMedianMs: round(median(opens)),
          targetMs: 500,
        },
        export: {
          format: 'mp4',
          fps: 10,
          videoMs: video.durationMs,
          elapsedMs: video.elapsedMs,
          timesRealTime: round(video.durationMs / video.elapsedMs),
          target: 4,
        },
      },
      null,
      2,
    ),
  );
} finally {
  await rm(dir, { recursive: true, force: true });
}
