// The recording when the disk cannot keep up or fails: the feed never waits (each call returns
// at once, with nothing to await), the writer drops frames and says so (onStatus), the index and
// the event track name the gap, the file stays whole (no half instruction), and once the disk
// takes data again a full keyframe makes the picture right again. The disk-full case writes to a
// real 1 MiB tmpfs the test mounts (as root); without mount rights it is skipped, with the reason.
import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import sharp from 'sharp';
import type { GuacInstruction } from '@overlay-companion/guac';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DisplayModel } from './displayModel.js';
import { RecordingReader } from './reader.js';
import { imageStream, ins } from './testing/streams.js';
import { RecordingWriter } from './writer.js';
import type { RecordingStatus } from './writerOptions.js';

const run = promisify(execFile);

/** A PNG of random pixels: it does not compress, so it fills a disk quickly. */
async function noisePng(width: number, height: number, seed: number): Promise<Buffer> {
  const raw = Buffer.alloc(width * height * 3);
  let state = seed * 2654435761;
  for (let i = 0; i < raw.length; i++) {
    state = (state * 1103515245 + 12345) >>> 0;
    raw[i] = state >>> 24;
  }
  return sharp(raw, { raw: { width, height, channels: 3 } })
    .png({ compressionLevel: 1 })
    .toBuffer();
}

/** How long each feed() call took, in ms, across a test. */
const feedTimes: number[] = [];

const fsRequests = (): number =>
  process.getActiveResourcesInfo().filter((r) => r.startsWith('FS')).length;

/**
 * Feeds one frame. Each feed() returns nothing to await and starts no file-system request
 * (counted before and after the call, with no event-loop turn between): the disk is never on
 * the live stream's path, whatever state it is in. Returns the number of instructions fed.
 */
function feedFrame(
  writer: RecordingWriter,
  live: GuacInstruction[],
  t: number,
  frame: GuacInstruction[],
): number {
  const all = [...frame, ins('sync', t)];
  for (const instruction of all) {
    const requests = fsRequests();
    const start = performance.now();
    const result: unknown = writer.feed(instruction, t);
    feedTimes.push(performance.now() - start);
    expect(result).toBeUndefined();
    expect(fsRequests()).toBe(requests);
    live.push(instruction);
  }
  return all.length;
}

function medianFeedMs(): number {
  const sorted = [...feedTimes].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? 0;
}

async function picture(instructions: GuacInstruction[]): Promise<Buffer> {
  const model = new DisplayModel();
  for (const instruction of instructions) await model.apply(instruction);
  return model.screen.rgba;
}

async function until(predicate: () => boolean, what: string, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!predicate()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe('recording when the disk cannot keep up or is full', () => {
  let base: string;
  beforeAll(async () => {
    base = await mkdtemp(join(tmpdir(), 'oc-rec-disk-'));
  });
  afterAll(async () => {
    await rm(base, { recursive: true, force: true });
  });

  it('drops frames while more than maxPendingBytes wait for the disk, marks the gap, and resumes with a keyframe', async () => {
    const statuses: RecordingStatus[] = [];
    const writer = await RecordingWriter.create({
      dir: base,
      maxPendingBytes: 64 * 1024,
      keyframeIntervalMs: 60_000,
      onStatus: (s) => statuses.push(s),
    });
    const t0 = 1_700_001_000_000;
    const live: GuacInstruction[] = [];
    feedFrame(writer, live, t0, [ins('size', 0, 256, 256)]);
    // A burst far over the budget in one go (fills need no decoding, so the writer handles them
    // without yielding to the disk in between): nothing waits, frames are dropped.
    for (let i = 1; i <= 30; i++) {
      const frame: GuacInstruction[] = [];
      for (let r = 0; r < 1000; r++)
        frame.push(ins('rect', 0, (r * 7 + i) % 250, (r * 13) % 250, 3, 3));
      frame.push(ins('cfill', 14, 0, (i * 8) % 256, 100, 200, 255));
      feedFrame(writer, live, t0 + i * 10, frame);
    }
    await until(() => statuses.some((s) => s.state === 'stopped'), 'the writer to report a gap');
    // The disk catches up; the next frames end the gap with a full keyframe.
    await new Promise((resolve) => setTimeout(resolve, 200));
    for (let i = 13; i <= 16; i++) {
      const png = await noisePng(64, 64, i);
      feedFrame(writer, live, t0 + 1000 + i * 10, imageStream(i, 0, 0, 128, png));
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const summary = await writer.close();
    // A typical call queues and returns (single calls may meet a GC pause on a busy machine).
    expect(medianFeedMs()).toBeLessThan(0.5);
    // Stopped and resumed, once or more: the disk may catch up in the middle of the burst (the
    // writer does not decode while no mask is in force, so it can outrun the disk again).
    const states = statuses.map((s) => s.state);
    const pairs = states.length / 2;
    expect(pairs).toBeGreaterThanOrEqual(1);
    expect(states).toEqual(
      Array.from({ length: states.length }, (_, i) => (i % 2 === 0 ? 'stopped' : 'resumed')),
    );
    expect(summary.gaps).toHaveLength(pairs);
    for (const g of summary.gaps) expect(g.reason).toMatch(/too slow/);

    const reader = await RecordingReader.open(base, summary.id);
    expect(reader.gaps).toEqual(
      summary.gaps.map((g) => ({ from: g.from, to: g.to, reason: g.reason })),
    );
    const events = await reader.events();
    expect(events.filter((e) => e.kind === 'gap')).toEqual(
      summary.gaps.map((g) => ({ t: g.to, kind: 'gap', from: g.from, to: g.to, reason: g.reason })),
    );
    expect(events.some((e) => e.kind === 'recording.stopped')).toBe(true);
    // After the resume keyframe the picture is whole again: equal to the live one.
    expect((await reader.pictureAt(reader.end)).rgba.equals(await picture(live))).toBe(true);
    // A keyframe was indexed at each resume, though the interval (60 s) had not passed.
    for (const g of summary.gaps) expect(reader.keyframes.some((k) => k.t === g.to)).toBe(true);
  });

  it('on a full disk (ENOSPC on a 1 MiB tmpfs): reports the stop, names the gap in the index and event track, resumes once there is room', async (ctx) => {
    const mountPoint = join(base, 'small');
    await mkdir(mountPoint);
    try {
      await run('mount', ['-t', 'tmpfs', '-o', 'size=1m,mode=0700', 'tmpfs', mountPoint]);
    } catch (error) {
      const reason = `cannot mount a tmpfs here (${String((error as Error).message).split('\n')[0]}); run as root to test a full disk`;
      console.warn(`[recording] disk-full test skipped: ${reason}`);
      ctx.skip(reason);
      return;
    }
    let writer: RecordingWriter | undefined;
    try {
      // Take most of the room, to hand back later.
      const filler = join(mountPoint, 'filler');
      await writeFile(filler, Buffer.alloc(800 * 1024));
      const statuses: RecordingStatus[] = [];
      writer = await RecordingWriter.create({
        dir: mountPoint,
        keyframeIntervalMs: 60_000,
        retryAfterMs: 100,
        onStatus: (s) => statuses.push(s),
      });
      const t0 = 1_700_002_000_000;
      const live: GuacInstruction[] = [];
      feedFrame(writer, live, t0, [ins('size', 0, 256, 256)]);
      let i = 1;
      for (; i <= 40 && !statuses.some((s) => s.state === 'stopped'); i++) {
        const png = await noisePng(128, 128, i);
        feedFrame(
          writer,
          live,
          t0 + i * 100,
          imageStream(i, 0, (i % 2) * 128, i % 4 < 2 ? 0 : 128, png),
        );
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
      expect(statuses[0]?.state).toBe('stopped');
      expect(statuses[0]?.state === 'stopped' && statuses[0].reason).toMatch(/ENOSPC/);
      // The live feed goes on while the disk is full.
      for (let j = 0; j < 5; j++, i++) {
        const png = await noisePng(64, 64, i);
        feedFrame(writer, live, t0 + i * 100, imageStream(i, 0, 0, 0, png));
      }
      // A typical call queues and returns (single calls may meet a GC pause on a busy machine).
      expect(medianFeedMs()).toBeLessThan(0.5);
      // Room again: the writer retries on its own and resumes with a full keyframe.
      await rm(filler);
      for (let j = 0; j < 20 && !statuses.some((s) => s.state === 'resumed'); j++, i++) {
        feedFrame(writer, live, t0 + i * 100, [
          ins('rect', 0, j, j, 10, 10),
          ins('cfill', 14, 0, 0, 255, 0, 255),
        ]);
        await new Promise((resolve) => setTimeout(resolve, 60));
      }
      const summary = await writer.close();
      expect(
        statuses.map((s) => s.state),
        JSON.stringify(statuses),
      ).toEqual(['stopped', 'resumed']);
      expect(summary.gaps).toHaveLength(1);
      const reader = await RecordingReader.open(mountPoint, summary.id);
      expect(reader.gaps).toEqual([{ ...summary.gaps[0], to: summary.gaps[0]!.to }]);
      expect(reader.gaps[0]!.reason).toMatch(/ENOSPC/);
      const events = await reader.events();
      expect(events.filter((e) => e.kind === 'gap')).toHaveLength(1);
      // The file is whole: it ends with a complete instruction, and it replays to the live picture.
      const file = await readFile(summary.paths.recording, 'latin1');
      expect(file.endsWith(';')).toBe(true);
      expect((await reader.pictureAt(reader.end)).rgba.equals(await picture(live))).toBe(true);
    } finally {
      await writer?.close().catch(() => undefined);
      // Lazily, if something still holds a file there: never leave the mount behind.
      await run('umount', [mountPoint]).catch(() => run('umount', ['-l', mountPoint]));
    }
  });
});
