// Keyframes of a heavily scrolling desktop, built as the writer builds them while nothing is
// masked: the model catches up with the file later and draws only what is still visible at each
// keyframe (visibleDraws.ts), so most of the scroll's images are never decoded. A real xterm on a
// real Xvnc scrolls text for seconds through our gateway (and Apache guacd 1.6 when built here);
// afterwards the reader's picture at every keyframe, and a few frames after each (drawn from the
// keyframe's buffers too), equals pixel for pixel the picture of the whole file replayed from its
// first byte with every draw drawn — and, through our gateway (lossless), the last picture
// equals `xwd -root` once the screen is still.
import type { ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { captureRoot, compareRgba, waitForScreenMatch } from '@overlay-companion/gateway/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RecordingReader } from './reader.js';
import { findGuacd } from './testing/guacd.js';
import { startStreamedDesktop, type StreamedDesktop } from './testing/streamedDesktop.js';
import { RecordingWriter } from './writer.js';
import type { RecordingSummary } from './writerOptions.js';

const WIDTH = 800;
const HEIGHT = 500;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const guacdMissing = findGuacd().skip;

describe.each([
  { path: 'gateway', skip: undefined },
  { path: 'guacd', skip: guacdMissing },
])('keyframes of a scrolling xterm through the $path', ({ path, skip }) => {
  let streamed: StreamedDesktop | undefined;
  let dir: string;
  let summary: RecordingSummary;
  let still: { t: number; image: Awaited<ReturnType<typeof captureRoot>> } | undefined;
  const children: ChildProcess[] = [];

  beforeAll(async () => {
    if (skip) return;
    dir = await mkdtemp(join(tmpdir(), 'oc-rec-scroll-'));
    // Keyframes every second while it scrolls; the model is left to follow the file.
    const writer = await RecordingWriter.create({
      dir,
      keyframeIntervalMs: 1000,
      maxKeyframeIntervalMs: 1000,
    });
    streamed = await startStreamedDesktop(
      path as 'gateway' | 'guacd',
      { width: WIDTH, height: HEIGHT },
      (instruction) => writer.feed(instruction),
    );
    const { desktop, client, live, x } = streamed;
    expect(client.errors).toEqual([]);
    client.send('mouse', 0, 0, 0);
    await x('xsetroot', ['-solid', '#203040']);
    // Seconds of text scrolling through a window most of the screen wide; the script says when
    // it is done.
    const done = join(dir, 'scrolled');
    const term = desktop.spawnClient('xterm', [
      '-geometry',
      '90x26+10+10',
      '-e',
      'sh',
      '-c',
      `sleep 1; i=0; while [ $i -lt 300 ]; do echo "line $i the quick brown fox jumps over the lazy dog $i"; i=$((i+1)); sleep 0.01; done; touch ${done}; sleep 600`,
    ]);
    children.push(term);
    await x('sh', [
      '-c',
      `for i in $(seq 600); do [ -e ${done} ] && exit 0; sleep 0.1; done; exit 1`,
    ]);
    await sleep(500);
    if (path === 'gateway') {
      // guacd sends lossy images while it scrolls, and refreshes them losslessly when it likes:
      // on its path the keyframes are checked against the file alone.
      const diff = await waitForScreenMatch(desktop.env, () => live.screen, 20_000);
      expect(diff, 'live client vs X once still').toEqual({ mismatches: 0 });
      still = { t: Date.now(), image: await captureRoot(desktop.env) };
    }
    await sleep(300);
    await streamed.liveDrawn();
    summary = await writer.close(Date.now());
  }, 120_000);

  afterAll(async () => {
    for (const child of children) child.kill();
    await streamed?.stop();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('seeks to every keyframe, and frames after it, to the picture of the whole file replayed', async (ctx) => {
    if (skip) return ctx.skip(skip);
    expect(summary.gaps).toEqual([]);
    const reader = await RecordingReader.open(dir, summary.id);
    // The scroll spans several keyframes (the test means nothing with one).
    expect(reader.keyframes.length).toBeGreaterThanOrEqual(4);
    // Each keyframe's moment, and the third frame after it.
    const frameTimes: number[] = [];
    for await (const step of reader.steps()) if (step.applied) frameTimes.push(step.t);
    const moments = new Set<number>();
    for (const keyframe of reader.keyframes) {
      moments.add(keyframe.t);
      const after = frameTimes.filter((t) => t > keyframe.t)[2];
      if (after !== undefined) moments.add(after);
    }
    // The reference: every frame of the file drawn, from its first byte.
    const reference = new Map<number, Buffer>();
    for await (const step of reader.steps())
      if (step.applied && moments.has(step.t))
        reference.set(step.t, Buffer.from(step.model.screen.rgba));
    for (const t of moments) {
      const picture = await reader.pictureAt(t);
      const expected = reference.get(t);
      expect(expected, `a frame at ${t}`).toBeDefined();
      const diff = picture.rgba.findIndex((v, i) => expected?.[i] !== v);
      expect(diff, `the first differing byte at ${t}`).toBe(-1);
    }
    if (still !== undefined)
      expect(compareRgba(still.image, await reader.pictureAt(still.t))).toEqual({ mismatches: 0 });
  });
});
