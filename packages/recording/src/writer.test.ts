// The writer and reader on streams built the way our gateway and guacd 1.6 send them: the
// picture the reader gives at any moment equals what a live client drew by then; keyframes are
// used for seeking; masks keep every pixel of the masked content out of the file (each frame of
// the file replayed, every image and keyframe decoded), also through buffers; files are 0600
// and named by a random id.
import { mkdtemp, readdir, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import { GuacParser, type GuacInstruction } from '@overlay-companion/guac';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DisplayModel } from './displayModel.js';
import type { KeyframeEntry } from './indexFormat.js';
import type { Rect, Surface } from './layers.js';
import { RecordingReader } from './reader.js';
import { record, sameRgb } from './testing/recordFrames.js';
import { countColourIn, imageStream, ins, solidPng } from './testing/streams.js';
import { RecordingWriter } from './writer.js';
import type { RecordingStatus } from './writerOptions.js';

const MAGENTA = [255, 0, 255] as const;
const ORANGE = [255, 128, 0] as const;

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'oc-rec-test-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** Every image in the recording file, decoded, with the time of the frame it belongs to. */
async function imagesInFile(path: string): Promise<{ t: number; layer: number; image: Surface }[]> {
  const parser = new GuacParser();
  const open = new Map<string, { layer: number; chunks: string[] }>();
  const done: { layer: number; png: Buffer }[] = [];
  const out: { t: number; layer: number; image: Surface }[] = [];
  for (const { opcode, args } of parser.push(await readFile(path))) {
    if (opcode === 'img') open.set(args[0]!, { layer: Number(args[2]), chunks: [] });
    else if (opcode === 'blob') open.get(args[0]!)?.chunks.push(args[1]!);
    else if (opcode === 'end') {
      const image = open.get(args[0]!);
      open.delete(args[0]!);
      if (image)
        done.push({ layer: image.layer, png: Buffer.from(image.chunks.join(''), 'base64') });
    } else if (opcode === 'sync') {
      for (const { layer, png } of done.splice(0)) {
        const { data, info } = await sharp(png)
          .ensureAlpha()
          .raw()
          .toBuffer({ resolveWithObject: true });
        out.push({
          t: Number(args[0]),
          layer,
          image: { width: info.width, height: info.height, rgba: data },
        });
      }
    }
  }
  return out;
}

describe('RecordingWriter and RecordingReader', () => {
  it('replays the picture of every moment, through keyframes, from 0600 files named by a random id', async () => {
    const writer = await RecordingWriter.create({
      dir,
      keyframeIntervalMs: 250,
      maxKeyframeIntervalMs: 250,
    });
    const t0 = 1_700_000_000_000;
    const blue = await solidPng(200, 100, [0, 0, 200]);
    const green = await solidPng(30, 20, [0, 180, 0]);
    const frames: { t: number; instructions: GuacInstruction[] }[] = [
      {
        t: t0,
        instructions: [
          ins('size', 0, 200, 100),
          ins('size', -2, 200, 100),
          ...imageStream(1, 0, 0, 0, blue),
        ],
      },
    ];
    for (let i = 1; i <= 20; i++) {
      frames.push({
        t: t0 + i * 100,
        instructions: [
          ...imageStream(i + 1, 0, (i * 7) % 170, (i * 3) % 80, green),
          ins('rect', 0, i, 90 - i, 10, 5),
          ins('cfill', 14, 0, 200, i * 10, 0, 255),
          // A move through buffer -2, as the gateway scrolls.
          ins('copy', 0, 0, 10, 200, 80, 14, -2, 0, 10),
          ins('copy', -2, 0, 10, 200, 80, 14, 0, 0, 0),
        ],
      });
    }
    const live = await record(writer, frames);
    const summary = await writer.close();

    expect(summary.id).toMatch(/^[A-Za-z0-9_-]{22}$/);
    expect((await readdir(dir)).filter((f) => f.startsWith(summary.id)).sort()).toEqual(
      [
        `${summary.id}.events.jsonl`,
        `${summary.id}.guac`,
        `${summary.id}.index.jsonl`,
        `${summary.id}.keys`,
      ].sort(),
    );
    for (const path of Object.values(summary.paths))
      expect((await stat(path)).mode & 0o777).toBe(0o600);
    expect(summary.keyframes).toBeGreaterThanOrEqual(6);

    const reader = await RecordingReader.open(dir, summary.id);
    expect(reader.end).toBe(t0 + 2000);
    expect(reader.keyframes.length).toBe(summary.keyframes);
    for (const { t, picture } of live) {
      expect(sameRgb(picture, await reader.pictureAt(t)), `at ${t - t0} ms`).toBe(0);
      // Between frames, the picture of the last frame.
      expect(sameRgb(picture, await reader.pictureAt(t + 50)), `at ${t - t0 + 50} ms`).toBe(0);
    }
    // The replay of the whole file, frame by frame, gives the same pictures.
    let i = 0;
    for await (const frame of reader.frames()) {
      expect(frame.t).toBe(live[i]?.t);
      expect(sameRgb(live[i]!.picture, frame.model.screen)).toBe(0);
      i++;
    }
    expect(i).toBe(live.length);
  });

  it('keeps no picture while no mask is in force: its keyframes name the draws that make the picture, at the frames the rule picks', async () => {
    const keyframes = async (id: string) =>
      (await readFile(join(dir, `${id}.index.jsonl`), 'utf8'))
        .split('\n')
        .filter((line) => line.includes('"keyframe"'))
        .map((line) => JSON.parse(line) as KeyframeEntry);
    const frames = async (t0: number) => {
      const blue = await solidPng(120, 80, [0, 0, 200]);
      const list = [
        { t: t0, instructions: [ins('size', 0, 120, 80), ...imageStream(1, 0, 0, 0, blue)] },
      ];
      for (let i = 1; i <= 10; i++) {
        const dot = await solidPng(10, 10, [i * 20, 200, 0]);
        list.push({ t: t0 + i * 100, instructions: imageStream(i + 1, 0, i * 10, 30, dot) });
      }
      // The whole screen again: everything before it is covered.
      list.push({ t: t0 + 1100, instructions: imageStream(20, 0, 0, 0, blue) });
      list.push({ t: t0 + 1400, instructions: imageStream(21, 0, 50, 50, blue) });
      return list;
    };
    const t0 = 1_700_000_050_000;
    // The same frames, once with a mask in force all along (the model follows the stream) ...
    const masked = await RecordingWriter.create({
      dir,
      keyframeIntervalMs: 250,
      maxKeyframeIntervalMs: 250,
    });
    masked.setMasks([{ x: 0, y: 0, width: 5, height: 5 }], t0);
    await record(masked, await frames(t0));
    await masked.idle();
    await new Promise((resolve) => setTimeout(resolve, 100));
    const pixelKeyframes = await keyframes(masked.id);
    await masked.close();
    // ... and once without: no model, no PNG; each keyframe names byte ranges of the file.
    const writer = await RecordingWriter.create({
      dir,
      keyframeIntervalMs: 250,
      maxKeyframeIntervalMs: 250,
    });
    const live = await record(writer, await frames(t0));
    await writer.idle();
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(pixelKeyframes.length).toBeGreaterThanOrEqual(4);
    expect(pixelKeyframes.every((k) => k.draws === undefined)).toBe(true);
    const references = await keyframes(writer.id);
    expect(references.map((k) => k.t)).toEqual(pixelKeyframes.map((k) => k.t));
    expect(references.every((k) => k.draws !== undefined && k.surfaces.length === 0)).toBe(true);
    expect((await stat(join(dir, `${writer.id}.keys`))).size).toBe(0);
    // After the screen was drawn again, only that draw (and the size before it) makes the picture.
    const last = references.at(-1)!;
    expect(last.t).toBeGreaterThanOrEqual(t0 + 1100);
    const bytes = (k: KeyframeEntry) => k.draws!.reduce((sum, [a, b]) => sum + b - a, 0);
    expect(bytes(last)).toBeLessThan(bytes(references[1]!));
    const summary = await writer.close();
    const reader = await RecordingReader.open(dir, summary.id);
    for (const { t, picture } of live)
      expect(sameRgb(picture, await reader.pictureAt(t)), `at ${t - t0} ms`).toBe(0);
  });

  it('keeps every pixel of masked content out of the file, also when a buffer carries it', async () => {
    const writer = await RecordingWriter.create({
      dir,
      keyframeIntervalMs: 300,
      maxKeyframeIntervalMs: 300,
    });
    const t0 = 1_700_000_100_000;
    const grey = await solidPng(320, 200, [90, 90, 90]);
    const magenta = await solidPng(60, 40, MAGENTA);
    const orangeBig = await solidPng(120, 80, ORANGE);
    const mask: Rect = { x: 100, y: 60, width: 130, height: 90 };
    const frames: { t: number; instructions: GuacInstruction[]; masks?: Rect[] }[] = [
      { t: t0, instructions: [ins('size', 0, 320, 200), ...imageStream(1, 0, 0, 0, grey)] },
      // The mask comes; in the same frame a secret window appears under it.
      { t: t0 + 100, masks: [mask], instructions: [...imageStream(2, 0, 110, 70, magenta)] },
      // An image overlapping the mask's edge: the part outside is fine, the part inside is not.
      { t: t0 + 200, instructions: [...imageStream(3, 0, 180, 100, orangeBig)] },
      // The server saves the screen into a buffer (guacd 1.6 does, every frame) ...
      { t: t0 + 300, instructions: [ins('copy', 0, 0, 0, 320, 200, 14, -5, 0, 0)] },
      // ... the secret goes away under the mask (painted grey again), keyframes pass ...
      {
        t: t0 + 700,
        instructions: [ins('rect', 0, 100, 60, 130, 90), ins('cfill', 14, 0, 90, 90, 90, 255)],
      },
      // ... the mask goes, and the buffer's old copy of the secret is copied back on screen.
      { t: t0 + 800, masks: [], instructions: [] },
      { t: t0 + 900, instructions: [ins('copy', -5, 110, 70, 60, 40, 14, 0, 10, 10)] },
    ];
    for (let t = t0 + 400; t < t0 + 700; t += 100) frames.splice(4, 0, { t, instructions: [] });
    frames.sort((a, b) => a.t - b.t);
    await record(writer, frames);
    const summary = await writer.close();
    const reader = await RecordingReader.open(dir, summary.id);

    // Every frame of the file replayed: while the mask is in force, no magenta inside it.
    let checked = 0;
    for await (const { t, model } of reader.frames()) {
      if (t >= t0 + 100 && t < t0 + 800) {
        expect(countColourIn(model.screen, [mask], MAGENTA), `frame at ${t - t0} ms`).toBe(0);
        expect(countColourIn(model.screen, [mask], ORANGE), `frame at ${t - t0} ms`).toBe(0);
        checked++;
      }
      // The secret was only ever on screen under the mask, so it may appear nowhere at all,
      // not even after the mask went (the buffer's copy of it was blacked out).
      const everywhere = [{ x: 0, y: 0, width: 320, height: 200 }];
      expect(countColourIn(model.screen, everywhere, MAGENTA), `frame at ${t - t0} ms`).toBe(0);
      for (const [index, surface] of model.surfaces)
        expect(countColourIn(surface, everywhere, MAGENTA), `surface ${index} at ${t - t0}`).toBe(
          0,
        );
    }
    // Seven server frames under the mask, and the frame the mask itself wrote when it came.
    expect(checked).toBe(8);
    // The part of the big image outside the mask is recorded (it was not masked).
    const during = await reader.pictureAt(t0 + 250);
    expect(countColourIn(during, [{ x: 230, y: 100, width: 70, height: 80 }], ORANGE)).toBe(
      70 * 80,
    );
    // Every image in the file decoded, on any layer: no magenta at all.
    const images = await imagesInFile(summary.paths.recording);
    expect(images.length).toBeGreaterThan(3);
    for (const { t, layer, image } of images) {
      const all = [{ x: 0, y: 0, width: image.width, height: image.height }];
      expect(countColourIn(image, all, MAGENTA), `layer ${layer} at ${t - t0}`).toBe(0);
    }
    const keys = await readFile(summary.paths.keys);
    for (const k of reader.keyframes) {
      for (const s of k.surfaces) {
        const { data, info } = await sharp(keys.subarray(s.keysOffset, s.keysOffset + s.keysLength))
          .ensureAlpha()
          .raw()
          .toBuffer({ resolveWithObject: true });
        const picture = { width: info.width, height: info.height, rgba: data };
        const all = [{ x: 0, y: 0, width: info.width, height: info.height }];
        expect(
          countColourIn(picture, all, MAGENTA),
          `keyframe ${k.t - t0} surface ${s.index}`,
        ).toBe(0);
      }
    }
    const events = await reader.events();
    expect(events.filter((e) => e.kind === 'masks').map((e) => e.t - t0)).toEqual([100, 800]);
  });

  it('follows a resize that happens while a mask is in force', async () => {
    const writer = await RecordingWriter.create({ dir });
    const t0 = 1_700_000_300_000;
    const live = await record(writer, [
      {
        t: t0,
        instructions: [
          ins('size', 0, 100, 80),
          ...imageStream(1, 0, 0, 0, await solidPng(100, 80, [0, 90, 0])),
        ],
      },
      {
        t: t0 + 100,
        masks: [{ x: 0, y: 0, width: 10, height: 10 }],
        instructions: [ins('size', 0, 160, 90)],
      },
      {
        t: t0 + 200,
        instructions: [...imageStream(2, 0, 100, 0, await solidPng(60, 90, [0, 0, 90]))],
      },
    ]);
    const summary = await writer.close();
    const picture = await (await RecordingReader.open(dir, summary.id)).pictureAt(t0 + 200);
    expect([picture.width, picture.height]).toEqual([160, 90]);
    const expected = live[2]!.picture;
    for (let y = 0; y < 10; y++)
      expected.rgba.fill(Buffer.from([0, 0, 0, 255]), y * 160 * 4, (y * 160 + 10) * 4);
    expect(sameRgb(expected, picture)).toBe(0);
  });

  it('stops with a named gap, rather than grow without bound, when it falls too far behind', async () => {
    const statuses: RecordingStatus[] = [];
    const writer = await RecordingWriter.create({
      dir,
      maxBacklog: 50,
      onStatus: (s) => statuses.push(s),
    });
    const t0 = 1_700_000_400_000;
    const png = await solidPng(20, 20, [1, 2, 3]);
    writer.feed(ins('size', 0, 20, 20), t0);
    // Fed in one go, with no turn of the event loop: more than 50 wait.
    for (let i = 0; i < 40; i++)
      for (const x of [...imageStream(i, 0, 0, 0, png), ins('sync', t0 + i)])
        writer.feed(x, t0 + i);
    const summary = await writer.close();
    expect(statuses.map((s) => s.state)).toEqual(['stopped', 'failed']);
    expect(summary.gaps).toHaveLength(1);
    expect(summary.gaps[0]!.reason).toMatch(/fell 50 instructions behind/);
    const reader = await RecordingReader.open(dir, summary.id);
    expect(reader.gaps.map((g) => g.reason)).toEqual([summary.gaps[0]!.reason]);
  });

  it('writes events validated by the schema and refuses malformed ones', async () => {
    const writer = await RecordingWriter.create({ dir, now: () => 1_700_000_200_000 });
    writer.event({
      kind: 'overlay.drawn',
      id: 'o1',
      rect: { x: 1, y: 2, width: 3, height: 4 },
      label: 'Save',
    });
    writer.event({
      kind: 'ai.action',
      id: 'a1',
      tool: 'click',
      args: { x: 5, y: 6 },
      intent: 'save the file',
      decision: 'approved',
      approvedBy: 'person',
      point: { x: 5, y: 6 },
    });
    expect(() => writer.event({ kind: 'stop', t: Number.NaN } as never)).toThrow(
      /Not a recording event/,
    );
    const summary = await writer.close();
    const events = await (await RecordingReader.open(dir, summary.id)).events();
    expect(events.map((e) => e.kind)).toEqual(['overlay.drawn', 'ai.action']);
    expect(events[1]).toMatchObject({ t: 1_700_000_200_000, tool: 'click', decision: 'approved' });
  });

  it('hold() stops writing with a gap of its own until release(), which resumes with a keyframe; bytesOnDisk and onWritten follow the files', async () => {
    const statuses: RecordingStatus[] = [];
    const written: number[] = [];
    const writer = await RecordingWriter.create({
      dir,
      keyframeIntervalMs: 60_000,
      onStatus: (s) => statuses.push(s),
      onWritten: (bytes) => written.push(bytes),
    });
    const t0 = 1_700_000_300_000;
    const live = new DisplayModel();
    /** One frame to the writer and the live model; the live picture after it. */
    const frame = async (t: number, instructions: GuacInstruction[]): Promise<Surface> => {
      for (const instruction of [...instructions, ins('sync', t, 1)]) {
        writer.feed(instruction, t);
        await live.apply(instruction);
      }
      return { ...live.screen, rgba: Buffer.from(live.screen.rgba) };
    };
    const fill = (x: number, rgb: [number, number, number]): GuacInstruction[] => [
      ins('rect', 0, x, x, 8, 8),
      ins('cfill', 14, 0, ...rgb, 255),
    ];
    await frame(t0, [ins('size', 0, 32, 32), ...fill(0, [255, 0, 0])]);
    const before = await frame(t0 + 100, fill(4, [0, 255, 0]));
    await writer.idle();
    writer.hold('the disk is nearly full', t0 + 150);
    await frame(t0 + 200, fill(8, [0, 0, 255]));
    const held = await frame(t0 + 300, fill(16, [255, 255, 0]));
    await writer.idle();
    expect(statuses).toEqual([
      { state: 'stopped', from: t0 + 150, reason: 'the disk is nearly full' },
    ]);
    const whileHeld = written.length;
    writer.release(t0 + 350);
    const after = await frame(t0 + 400, fill(24, [255, 0, 255]));
    await writer.idle();
    expect(written.length).toBeGreaterThan(whileHeld);
    expect(written.every((b, i) => i === 0 || b >= written[i - 1]!)).toBe(true);
    const onDisk = writer.bytesOnDisk;
    const summary = await writer.close();
    expect(statuses.map((s) => s.state)).toEqual(['stopped', 'resumed']);
    expect(summary.gaps).toEqual([
      { from: t0 + 150, to: t0 + 400, reason: 'the disk is nearly full' },
    ]);
    const reader = await RecordingReader.open(dir, summary.id);
    expect(reader.gaps).toEqual(summary.gaps);
    // Nothing of the held frames: at the last held moment, the picture from before the hold.
    expect(sameRgb(held, before)).toBeGreaterThan(0);
    expect(sameRgb(await reader.pictureAt(t0 + 300), before)).toBe(0);
    // The resume keyframe brings the whole picture back.
    expect(sameRgb(await reader.pictureAt(t0 + 400), after)).toBe(0);
    // While open, bytesOnDisk counted the files and the room reserved ahead of the JSON lines;
    // closed, they take no more than that.
    let total = 0;
    for (const path of Object.values(summary.paths)) total += (await stat(path)).size;
    expect(onDisk).toBeGreaterThanOrEqual(total);
  });

  it('close(endAt) makes the recording last until then: a still screen at the end is part of it', async () => {
    const writer = await RecordingWriter.create({ dir });
    const t0 = 1_700_000_400_000;
    writer.feed(ins('size', 0, 8, 8), t0);
    writer.feed(ins('rect', 0, 0, 0, 8, 8), t0);
    writer.feed(ins('cfill', 14, 0, 0, 0, 255, 255), t0);
    writer.feed(ins('sync', t0), t0);
    const summary = await writer.close(t0 + 9_000);
    expect(summary.end).toBe(t0 + 9_000);
    const reader = await RecordingReader.open(dir, summary.id);
    expect([reader.start, reader.end]).toEqual([t0, t0 + 9_000]);
    // The picture holds to the end.
    expect((await reader.pictureAt(t0 + 8_999)).rgba.subarray(0, 3)).toEqual(
      Buffer.from([0, 0, 255]),
    );
    expect(
      (await readFile(summary.paths.recording, 'latin1')).endsWith(`4.sync,13.${t0 + 9_000};`),
    ).toBe(true);
    // A time before the last frame changes nothing.
    const again = await RecordingWriter.create({ dir });
    again.feed(ins('size', 0, 8, 8), t0);
    again.feed(ins('sync', t0 + 500), t0 + 500);
    expect((await again.close(t0)).end).toBe(t0 + 500);
  });
});
