// Export and interoperability: a recording becomes a video with Debian's ffmpeg, with the AI's
// overlay drawn from when it was drawn until it was removed and the AI pointer at the clicked
// pixel at the click's time (frames decoded back out of the video with ffmpeg); the event track
// exports as JSON lines; and Apache's own guacenc (1.6.0, built by ../shared/vendor's
// build-guacenc.sh) converts the same recording file to video, as it does guacd's.
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exportEvents, exportVideo } from './export.js';
import { RecordingReader } from './reader.js';
import { findGuacenc, guacenc } from './testing/guacenc.js';
import { imageStream, ins, solidPng } from './testing/streams.js';
import { RecordingWriter } from './writer.js';

const run = promisify(execFile);
const W = 320;
const H = 200;
const t0 = 1_700_003_000_000;

async function hasFfmpeg(): Promise<boolean> {
  return run('ffmpeg', ['-version']).then(
    () => true,
    () => false,
  );
}

/** The RGB of pixel (x, y) of the video's frame at `seconds`. */
async function videoPixel(
  path: string,
  seconds: number,
  x: number,
  y: number,
  width = W,
): Promise<number[]> {
  const { stdout } = await run(
    'ffmpeg',
    [
      '-v',
      'error',
      '-i',
      path,
      '-ss',
      seconds.toFixed(3),
      '-frames:v',
      '1',
      '-f',
      'rawvideo',
      '-pix_fmt',
      'rgb24',
      '-',
    ],
    { encoding: 'buffer', maxBuffer: 64 * 1024 * 1024 },
  );
  const o = (y * width + x) * 3;
  return [stdout[o]!, stdout[o + 1]!, stdout[o + 2]!];
}

async function durationOf(path: string): Promise<number> {
  const { stdout } = await run('ffprobe', [
    '-v',
    'error',
    '-show_entries',
    'format=duration',
    '-of',
    'csv=p=0',
    path,
  ]);
  return Number(stdout.trim());
}

describe('export', () => {
  let dir: string;
  let id: string;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'oc-rec-export-'));
    const writer = await RecordingWriter.create({
      dir,
      keyframeIntervalMs: 1000,
      maxKeyframeIntervalMs: 1000,
    });
    const colours: [number, number, number][] = [
      [0, 0, 200],
      [200, 0, 0],
      [0, 180, 0],
      [0, 180, 0],
    ];
    for (let s = 0; s <= 4; s++) {
      const t = t0 + s * 1000;
      const frame = s === 0 ? [ins('size', 0, W, H)] : [];
      const colour = colours[Math.min(s, colours.length - 1)]!;
      if (s < 4) frame.push(...imageStream(s + 1, 0, 0, 0, await solidPng(W, H, colour)));
      for (const i of [...frame, ins('sync', t)]) writer.feed(i, t);
    }
    writer.event({
      t: t0 + 500,
      kind: 'overlay.drawn',
      id: 'o1',
      rect: { x: 40, y: 40, width: 100, height: 60 },
      label: 'Save',
    });
    writer.event({ t: t0 + 2500, kind: 'overlay.removed', id: 'o1' });
    writer.event({
      t: t0 + 3000,
      kind: 'ai.action',
      id: 'a1',
      tool: 'click',
      args: { x: 200, y: 150 },
      decision: 'approved',
      approvedBy: 'person',
      point: { x: 200, y: 150 },
    });
    id = (await writer.close()).id;
  });

  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('renders a video with the overlays and the AI pointer at their times and pixels', async (ctx) => {
    if (!(await hasFfmpeg())) {
      console.warn('[recording] export test skipped: no ffmpeg (apt-get install ffmpeg)');
      return ctx.skip('no ffmpeg on PATH');
    }
    const reader = await RecordingReader.open(dir, id);
    const out = join(dir, 'video.mp4');
    const result = await exportVideo(reader, out, { fps: 10 });
    expect(result).toMatchObject({ width: W, height: H, frames: 41 });
    expect(await durationOf(out)).toBeCloseTo(4.1, 1);

    const orange = (p: number[]) => p[0]! > 180 && p[1]! > 60 && p[1]! < 200 && p[2]! < 90;
    const red = (p: number[]) => p[0]! > 170 && p[1]! < 110;
    // The overlay's left border, from 0.5 s until 2.5 s.
    expect(orange(await videoPixel(out, 0.3, 41, 70))).toBe(false);
    expect(orange(await videoPixel(out, 1.5, 41, 70))).toBe(true);
    expect(orange(await videoPixel(out, 2.7, 41, 70))).toBe(false);
    // The picture underneath: blue, then red, then green.
    const [r1, , b1] = await videoPixel(out, 0.3, 250, 100);
    expect(b1! > 150 && r1! < 60).toBe(true);
    // The AI pointer's mark on the clicked pixel from 3.0 s for a second, on a green screen.
    expect(red(await videoPixel(out, 2.9, 200, 150))).toBe(false);
    expect(red(await videoPixel(out, 3.3, 200, 150))).toBe(true);
    expect(red(await videoPixel(out, 4.05, 200, 150))).toBe(false);
    console.log(`[recording] export: ${result.durationMs} ms of video in ${result.elapsedMs} ms`);
  });

  it('exports the event track as JSON lines', async () => {
    const reader = await RecordingReader.open(dir, id);
    const out = join(dir, 'events.jsonl');
    expect(await exportEvents(reader, out)).toBe(3);
    const lines = (await readFile(out, 'utf8'))
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { kind: string });
    expect(lines.map((l) => l.kind)).toEqual(['overlay.drawn', 'overlay.removed', 'ai.action']);
    expect((await stat(out)).mode & 0o777).toBe(0o600);
  });

  it("converts with Apache's guacenc, as guacd's own recordings do", async (ctx) => {
    const found = findGuacenc();
    if (found.path === undefined) {
      console.warn(`[recording] guacenc test skipped: ${found.skip}`);
      return ctx.skip(found.skip);
    }
    const reader = await RecordingReader.open(dir, id);
    const { video, stderr } = await guacenc(found.path, reader.paths.recording, W, H);
    expect((await stat(video)).size, stderr).toBeGreaterThan(1000);
    // guacenc renders at 25 fps from the first sync to the last: 4 s.
    expect(await durationOf(video)).toBeGreaterThan(3.5);
    expect(stderr).not.toMatch(/Decreasing sync|not supported|failed/i);
  });

  it('shows a desktop resized during the recording whole, with the pointer on its own pixels', async (ctx) => {
    if (!(await hasFfmpeg())) return ctx.skip('no ffmpeg on PATH');
    // A window opens the desktop small and sizes it to itself a moment later (as viewers do).
    const writer = await RecordingWriter.create({ dir });
    const s0 = t0 + 100_000;
    writer.feed(ins('size', 0, 64, 48), s0);
    writer.feed(ins('rect', 0, 0, 0, 64, 48), s0);
    writer.feed(ins('cfill', 14, 0, 0, 0, 255, 255), s0);
    writer.feed(ins('sync', s0), s0);
    writer.feed(ins('size', 0, 160, 120), s0 + 500);
    writer.feed(ins('rect', 0, 0, 0, 160, 120), s0 + 500);
    writer.feed(ins('cfill', 14, 0, 0, 200, 0, 255), s0 + 500);
    writer.feed(ins('sync', s0 + 500), s0 + 500);
    writer.event({
      t: s0 + 1_000,
      kind: 'ai.action',
      id: 'c',
      tool: 'click_at',
      args: {},
      decision: 'allowed',
      point: { x: 130, y: 100 },
    });
    const summary = await writer.close(s0 + 2_500);
    const out = join(dir, 'resized.mp4');
    const result = await exportVideo(await RecordingReader.open(dir, summary.id), out, { fps: 10 });
    expect([result.width, result.height]).toEqual([160, 120]);
    expect(await durationOf(out)).toBeCloseTo(2.6, 1);
    const red = (p: number[]) => p[0]! > 170 && p[1]! < 110;
    // Beyond the first size, the pointer on the clicked pixel; green there before it.
    expect(red(await videoPixel(out, 1.3, 130, 100, 160))).toBe(true);
    const [r, g] = await videoPixel(out, 0.8, 130, 100, 160);
    expect(g! > 150 && r! < 80).toBe(true);
  });
});
