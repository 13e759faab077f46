// Opens a recording written by RecordingWriter and answers what the player and the export need:
// its start, end and gaps, the picture of the desktop at any moment, every frame in order, and
// the event track. The picture at `t` comes from the nearest keyframe at or before `t` (its
// surfaces decoded from `<id>.keys`, and for a reference keyframe the draws it names replayed over
// them), then the recording replayed from the keyframe's byte offset through a display model up
// to the last frame that ended at or before `t` — so a seek reads at most one keyframe interval
// of the file and one screenful of draws, however long the recording is. Should an image drawn on
// the way decode to another size than its header said (the draws skipped were chosen by their
// headers: visibleDraws.ts), the picture is drawn again in full from the keyframe's pixels — from
// its base for a reference keyframe — exactly as the browser would show it.
import { createReadStream } from 'node:fs';
import { open, readFile, stat } from 'node:fs/promises';
import sharp from 'sharp';
import { GuacParser, type GuacInstruction } from '@overlay-companion/guac';
import { DisplayModel } from './displayModel.js';
import { instructionsIn } from './fileTail.js';
import { RecordingEventSchema, type RecordingEvent } from './events.js';
import { IndexEntrySchema, recordingPaths, type Gap, type KeyframeEntry } from './indexFormat.js';
import { parseJsonLines } from './jsonLinesFile.js';
import type { Surface } from './layers.js';
import { applyVisible } from './visibleDraws.js';

/** One frame of a replay: the model right after the frame ending at `t` was applied. */
export interface ReplayFrame {
  t: number;
  model: DisplayModel;
}

const READ_CHUNK = 256 * 1024;
/** Instructions a seek gathers before drawing what of them shows (a few seconds of scrolling). */
const MAX_STRETCH = 100_000;

export class RecordingReader {
  private constructor(
    readonly id: string,
    readonly paths: ReturnType<typeof recordingPaths>,
    /** Epoch ms the recording started. */
    readonly start: number,
    /** Epoch ms of its last frame (or when it was closed). */
    readonly end: number,
    readonly keyframes: readonly KeyframeEntry[],
    readonly gaps: readonly Gap[],
  ) {}

  static async open(dir: string, id: string): Promise<RecordingReader> {
    const paths = recordingPaths(dir, id);
    const entries = parseJsonLines(await readFile(paths.index, 'utf8')).flatMap((value) => {
      const parsed = IndexEntrySchema.safeParse(value);
      return parsed.success ? [parsed.data] : [];
    });
    let start: number | undefined;
    let end: number | undefined;
    const keyframes: KeyframeEntry[] = [];
    const gaps = new Map<number, Gap>();
    for (const entry of entries) {
      if (entry.type === 'start') start = entry.t;
      else if (entry.type === 'end') end = entry.t;
      else if (entry.type === 'keyframe') keyframes.push(entry);
      else
        gaps.set(entry.from, { from: entry.from, to: entry.to ?? undefined, reason: entry.reason });
    }
    keyframes.sort((a, b) => a.t - b.t);
    const lastSync = await lastSyncIn(paths.recording);
    end = Math.max(end ?? 0, lastSync ?? 0);
    start ??= keyframes[0]?.t ?? end;
    return new RecordingReader(id, paths, start, end, keyframes, [...gaps.values()]);
  }

  /** Milliseconds from start to end. */
  get duration(): number {
    return this.end - this.start;
  }

  /**
   * The desktop's picture (layer 0) at epoch ms `t`: the frames from the keyframe up to `t` are
   * gathered and only what of them still shows at `t` is drawn (visibleDraws.ts) — a seek after
   * seconds of heavy scrolling decodes a screenful of images, not every one sent.
   */
  async pictureAt(t: number): Promise<Surface> {
    const keyframe = this.keyframeAtOrBefore(t);
    const model = new DisplayModel();
    if (
      (keyframe === undefined || (await this.loadKeyframe(keyframe, model))) &&
      (await this.drawVisible(model, keyframe?.offset ?? 0, t))
    )
      return model.screen;
    // An image whose header lied: everything from the keyframe's pixels on, drawn in full.
    const exact = new DisplayModel();
    if (keyframe) await this.loadKeyframe(keyframe, exact, false);
    for await (const step of this.replay(exact, keyframe ? startOf(keyframe) : 0)) {
      if (step.next !== undefined && step.next > t) break;
    }
    return exact.screen;
  }

  /**
   * Draws into `model` the frames from `offset` that ended at or before `t`, only what of them
   * still shows at `t`; false when an image decoded to another size than its header said.
   */
  private async drawVisible(model: DisplayModel, offset: number, t: number): Promise<boolean> {
    const parser = new GuacParser();
    const stream = createReadStream(this.paths.recording, {
      start: offset,
      highWaterMark: READ_CHUNK,
    });
    let stretch: GuacInstruction[] = [];
    let frame: GuacInstruction[] = [];
    try {
      reading: for await (const chunk of stream as AsyncIterable<Buffer>) {
        let instructions: GuacInstruction[];
        try {
          instructions = parser.push(chunk);
        } catch {
          break; // A damaged tail: the frames before it stand.
        }
        for (const instruction of instructions) {
          if (instruction.opcode !== 'sync') {
            frame.push(instruction);
            continue;
          }
          if (Number(instruction.args[0]) > t) break reading;
          for (const held of frame) stretch.push(held);
          frame = [];
          // Exact at every stretch's end, so a long one is drawn in parts (bounded memory).
          if (stretch.length >= MAX_STRETCH) {
            if (!(await applyVisible(model, stretch))) return false;
            stretch = [];
          }
        }
      }
    } finally {
      stream.destroy();
    }
    return applyVisible(model, stretch);
  }

  /** Every frame in order, from the start (or from the keyframe at or before `from`). */
  async *frames(from?: number): AsyncGenerator<ReplayFrame> {
    let model = new DisplayModel();
    const keyframe = from === undefined ? undefined : this.keyframeAtOrBefore(from);
    let offset = keyframe?.offset ?? 0;
    if (keyframe && !(await this.loadKeyframe(keyframe, model))) {
      // An image whose header lied: from the keyframe's pixels, every frame since drawn in full.
      model = new DisplayModel();
      await this.loadKeyframe(keyframe, model, false);
      offset = startOf(keyframe);
    }
    for await (const frame of this.replay(model, offset, true)) {
      if (frame.t !== undefined && (keyframe === undefined || frame.t >= keyframe.t))
        yield { t: frame.t, model };
    }
  }

  /**
   * The replay as steps, for renderers that need the picture before each frame too: for every
   * frame, `{ t, applied: false }` while `model` still shows the frame before, then
   * `{ t, applied: true }` once this one was drawn.
   */
  async *steps(): AsyncGenerator<{ t: number; applied: boolean; model: DisplayModel }> {
    const model = new DisplayModel();
    for await (const step of this.replay(model, 0, true)) {
      if (step.next !== undefined) yield { t: step.next, applied: false, model };
      else if (step.t !== undefined) yield { t: step.t, applied: true, model };
    }
  }

  /** The event track, validated line by line (unknown or broken lines skipped). */
  async events(): Promise<RecordingEvent[]> {
    const text = await readFile(this.paths.events, 'utf8').catch(() => '');
    return parseJsonLines(text).flatMap((value) => {
      const parsed = RecordingEventSchema.safeParse(value);
      return parsed.success ? [parsed.data] : [];
    });
  }

  keyframeAtOrBefore(t: number): KeyframeEntry | undefined {
    let lo = 0;
    let hi = this.keyframes.length - 1;
    let found: KeyframeEntry | undefined;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      const k = this.keyframes[mid] as KeyframeEntry;
      if (k.t <= t) {
        found = k;
        lo = mid + 1;
      } else hi = mid - 1;
    }
    return found;
  }

  /**
   * `keyframe`'s picture in `model`: its PNGs, and (with `draws`) the draws it names replayed over
   * them; false when one of those images decoded to another size than its header said.
   */
  private async loadKeyframe(
    keyframe: KeyframeEntry,
    model: DisplayModel,
    draws = true,
  ): Promise<boolean> {
    await this.loadPictures(keyframe, model);
    if (!draws || keyframe.draws === undefined) return true;
    const mismatches = model.mismatches;
    for (const instruction of await instructionsIn(this.paths.recording, keyframe.draws)) {
      const pending = model.apply(instruction);
      if (pending) await pending;
    }
    return model.mismatches === mismatches;
  }

  private async loadPictures(keyframe: KeyframeEntry, model: DisplayModel): Promise<void> {
    if (keyframe.surfaces.length === 0) return;
    const handle = await open(this.paths.keys, 'r');
    try {
      for (const s of keyframe.surfaces) {
        const png = Buffer.alloc(s.keysLength);
        await handle.read(png, 0, s.keysLength, s.keysOffset);
        const { data, info } = await sharp(png)
          .ensureAlpha()
          .raw()
          .toBuffer({ resolveWithObject: true });
        model.setSurface(s.index, { width: info.width, height: info.height, rgba: data });
      }
    } finally {
      await handle.close();
    }
  }

  /**
   * Replays the file from `offset` into `model`, a frame at a time: each frame's instructions are
   * held until its `sync` and applied only then. Yields before applying a frame with the time
   * it will end at (`next`), so a caller can stop short of it, and (when `after` is set) again
   * once it was applied (`t`).
   */
  private async *replay(
    model: DisplayModel,
    offset: number,
    after = false,
  ): AsyncGenerator<{ next?: number; t?: number }> {
    const parser = new GuacParser();
    const stream = createReadStream(this.paths.recording, {
      start: offset,
      highWaterMark: READ_CHUNK,
    });
    let frame: GuacInstruction[] = [];
    try {
      for await (const chunk of stream as AsyncIterable<Buffer>) {
        let instructions: GuacInstruction[];
        try {
          instructions = parser.push(chunk);
        } catch {
          return; // A damaged tail: the frames before it stand.
        }
        for (const instruction of instructions) {
          if (instruction.opcode !== 'sync') {
            frame.push(instruction);
            continue;
          }
          const t = Number(instruction.args[0]);
          yield { next: t };
          for (const held of frame) {
            const pending = model.apply(held);
            if (pending) await pending;
          }
          frame = [];
          if (after) yield { t };
        }
      }
    } finally {
      stream.destroy();
    }
  }
}

/** Where replaying the file in full starts from under `keyframe`'s pixels. */
function startOf(keyframe: KeyframeEntry): number {
  return keyframe.draws === undefined ? keyframe.offset : (keyframe.base ?? 0);
}

/** The timestamp of the last `sync` in the file's tail, if any. */
async function lastSyncIn(path: string): Promise<number | undefined> {
  const size = (await stat(path).catch(() => undefined))?.size ?? 0;
  if (size === 0) return undefined;
  const length = Math.min(size, READ_CHUNK);
  const handle = await open(path, 'r');
  try {
    const tail = Buffer.alloc(length);
    await handle.read(tail, 0, length, size - length);
    const text = tail.toString('latin1');
    let last: number | undefined;
    for (const match of text.matchAll(/4\.sync,\d+\.(\d+)[,;]/g)) last = Number(match[1]);
    return last;
  } finally {
    await handle.close();
  }
}
