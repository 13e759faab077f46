// The recording writer: one desktop connection's server→client Guacamole stream in, a session
// recording in the format guacd writes out (`<id>.guac`: the protocol stream itself, frames
// ended by `sync` with epoch-millisecond timestamps, which Guacamole.SessionRecording and guacenc
// read), plus its index with keyframes (`<id>.index.jsonl` + `<id>.keys`) and its event track
// (`<id>.events.jsonl`). File names are a random id; files are created with mode 0600.
//
// Privacy. With no mask in force the server's drawing instructions are passed through (cheap, and
// exactly what guacd would have written). While any privacy mask is in force nothing of the
// server's drawing reaches the file: passing img blobs through would leak (an image overlapping a
// mask, a buffer copied into one), so at each `sync` the writer writes the changed region of
// layer 0 from the display model with the masks painted black, as one PNG. Buffers the server
// filled by copying screen pixels that were under a mask are "tainted" there; those pixels are
// painted black before any buffer is written (when the masks go and the file's buffers must be
// brought up to date, in keyframes, after a gap) — also in the model itself, so the file and the
// model never disagree. Images the server draws straight into a buffer (guacd's and the gateway's
// cursor) are not screen content and are not tainted. Mask changes take effect at once, with a
// frame of their own in the file at that moment (an image stream open when a mask appears is
// ended in the file and the rest of it dropped).
//
// Keeping the model current, off the live path. Decoding every image the server sends into the
// model is nearly all a recording costs (measured on heavy scrolling: 94 % of the writer's CPU;
// encoding keyframes 2 %). While no mask is in force and no gap is open the file holds exactly
// the server's drawing, so the model need not follow the stream: it follows the file, later.
// It catches up — replaying the file from where it was, writing the keyframes due on the way, at
// the same frames and by the same rule as if it had been current — once the desktop has been
// still for `quietMs`, when the file has run `maxLagBytes` or `maxLagMs` ahead of it (so the
// keyframes of a recording being made, which its thumbnails seek with, trail by a minute at
// most), when the recording closes, and before anything that needs the picture now: a mask
// appearing (its first composed frame), a gap (the resume keyframe), a hold. Catching up reads
// the disk and, for what the disk has not confirmed, the writer's own copies of those chunks, so
// bytes a failing disk lost still reach the model. While a mask is in force or a gap is open,
// every instruction is applied as it comes, as before. feed() only queues (it never decodes,
// encodes or awaits), image decoding runs on sharp's thread pool, and writes are batched into
// one file write per frame: the live stream never waits. If the queue falls hopelessly behind
// (more than `maxBacklog` instructions) the recording stops rather than grow without bound.
//
// The disk never slows the live stream either: the file takes at most `maxPendingBytes` not yet
// written. When that is spent, or the disk fails (ENOSPC, EACCES, EIO), the writer drops frames,
// marks a gap in the index and the event track, reports it through `onStatus`, and keeps the model
// current; once the disk takes data again it writes a full keyframe into the recording (every
// surface), closes the gap and carries on. After a failure it retries every `retryAfterMs`.
//
// Not recorded: `nop`, clipboard/file/pipe/audio streams (their contents follow the audit's
// redaction, which is the bridge's business), `error`, `disconnect` and the handshake.
import { randomBytes } from 'node:crypto';
import { mkdir } from 'node:fs/promises';
import { encodeInstruction, type GuacInstruction } from '@overlay-companion/guac';
import { BoundedFile } from './boundedFile.js';
import { DisplayModel } from './displayModel.js';
import { RecordingEventSchema, type RecordingEvent } from './events.js';
import { instructionsFrom, type UnconfirmedChunk } from './fileTail.js';
import { encodePng, imageText, maskedRegion } from './frames.js';
import {
  INDEX_VERSION,
  recordingPaths,
  type IndexEntry,
  type SurfaceEntry,
} from './indexFormat.js';
import { JsonLinesFile } from './jsonLinesFile.js';
import {
  clip,
  CompositeMask,
  intersects,
  isEmpty,
  union,
  type Rect,
  type Surface,
} from './layers.js';

export interface RecordingWriterOptions {
  /** Directory for the files (created if missing, mode 0700). */
  dir: string;
  /**
   * Keyframes: at the first frame end at least `keyframeIntervalMs` (default 5000) after the
   * last one, once the recording has grown by half as many bytes as that keyframe took (a seek
   * then replays at most about half a keyframe's worth of the file), and in any case after
   * `maxKeyframeIntervalMs` (default 30 000). Measured on a one-hour office session at
   * 1280×800 (bench/seek.ts): keyframes every 5 s regardless cost 12× the recording's own
   * size; one keyframe's worth, at most 60 s apart, 1× but a seek of ~500 ms on a loaded
   * machine; this rule sits between.
   */
  keyframeIntervalMs?: number;
  maxKeyframeIntervalMs?: number;
  /** Recording bytes accepted but not yet on disk, at most (default 8 MiB). */
  maxPendingBytes?: number;
  /** Instructions queued for the model, at most, before the recording stops (default 200 000). */
  maxBacklog?: number;
  /**
   * The model catches up with the file (writing the keyframes due) once no frame came for this
   * long (default 1000 ms; wall clock), once the file has run `maxLagBytes` (default 32 MiB)
   * ahead of it…
   */
  quietMs?: number;
  maxLagBytes?: number;
  /** …or once its oldest frame not yet caught up is this old (default 60 000; the recording's clock). */
  maxLagMs?: number;
  /** After a disk failure, how often to try again (default 2000 ms). */
  retryAfterMs?: number;
  /** The clock for instructions fed without a time (default Date.now). */
  now?: () => number;
  /** Told when writing stops (a gap starts) and when it resumes. */
  onStatus?: (status: RecordingStatus) => void;
  /**
   * Told, after each chunk the recording or its keyframes take, how many bytes the recording's
   * files take now (`bytesOnDisk`): the bridge's retention watches a recording grow with it.
   * Called synchronously from the writer's own work; it must not throw or wait.
   */
  onWritten?: (bytes: number) => void;
}

export type RecordingStatus =
  | { state: 'stopped'; from: number; reason: string }
  | { state: 'resumed'; from: number; to: number }
  | { state: 'failed'; at: number; reason: string };

/** An event for the track; `t` defaults to the writer's clock. */
export type RecordingEventInput = RecordingEvent extends infer E
  ? E extends RecordingEvent
    ? Omit<E, 't'> & { t?: number }
    : never
  : never;

export interface RecordingSummary {
  id: string;
  paths: ReturnType<typeof recordingPaths>;
  /** Bytes of the recording file. */
  bytes: number;
  start: number;
  end: number;
  gaps: { from: number; to: number; reason: string }[];
  keyframes: number;
  frames: number;
}

// The server's drawing, passed through as is while no mask is in force. `blob` and `end` pass
// only for image streams.
const DRAWING = new Set([
  'size',
  'img',
  'copy',
  'transfer',
  'rect',
  'cfill',
  'dispose',
  'cursor',
  'mouse',
  'shade',
  'move',
  'set',
  'distort',
  'arc',
  'curve',
  'line',
  'start',
  'close',
  'clip',
  'cstroke',
  'lstroke',
  'lfill',
  'push',
  'pop',
  'reset',
  'identity',
  'transform',
]);

type Item =
  | { kind: 'instruction'; t: number; instruction: GuacInstruction }
  | { kind: 'masks'; t: number; rects: Rect[] }
  | { kind: 'hold'; t: number; reason: string | undefined }
  | { kind: 'catchUp'; t: number };

// Flush the frame being built once it holds this much, even before its `sync`.
const FLUSH_BYTES = 256 * 1024;

export class RecordingWriter {
  readonly id: string;
  readonly paths: ReturnType<typeof recordingPaths>;
  private readonly model: DisplayModel;
  private readonly keyframeIntervalMs: number;
  private readonly maxKeyframeIntervalMs: number;
  /** Bytes of the last keyframe's pictures, and the file's offset at it. */
  private lastKeyframeBytes = 0;
  private lastKeyframeOffset = 0;
  private readonly maxBacklog: number;
  private readonly retryAfterMs: number;
  private readonly now: () => number;
  private readonly onStatus: ((status: RecordingStatus) => void) | undefined;
  private readonly onWritten: ((bytes: number) => void) | undefined;
  /** Why the owner asked the writer to stop writing for now (hold()), while it is held. */
  private held: string | undefined;

  private readonly quietMs: number;
  private readonly maxLagBytes: number;
  private readonly maxLagMs: number;
  /**
   * True while the model does not follow the stream (no mask, no gap): it has applied the file up
   * to `modelAt`, and `syncPoints` are the frames written since (time and the offset after each
   * frame's sync, in order), for the keyframes due on the way when it catches up.
   */
  private lazy = true;
  private modelAt = 0;
  private syncPoints: { t: number; offset: number }[] = [];
  /** Chunks of the recording file written while lazy and not yet confirmed by the disk. */
  private unconfirmed: UnconfirmedChunk[] = [];
  private quietTimer: NodeJS.Timeout | undefined;

  private items: (Item | undefined)[] = [];
  private head = 0;
  private pumping: Promise<void> | undefined;
  private closing = false;
  private broken: string | undefined;

  private masks: Rect[] = [];
  /** True while a mask is in force: the file gets composed frames, not the server's drawing. */
  private composing = false;
  /** Per buffer, rectangles holding screen pixels that were under a mask. */
  private readonly taint = new Map<number, Rect[]>();
  /** Surfaces other than layer 0 drawn on while composing (the file has not seen it). */
  private readonly touchedWhileComposing = new Set<number>();
  /** Server image streams open in the model / in the file. */
  private readonly imageStreams = new Set<number>();
  private readonly fileStreams = new Set<number>();

  private out = '';
  /** Layer 0's size as the file last set it. */
  private fileScreen = { width: -1, height: -1 };
  private lastSync = 0;
  private startT: number | undefined;
  private frames = 0;
  private lastKeyframeT = Number.NEGATIVE_INFINITY;
  private drewSinceKeyframe = true;
  private keyframes = 0;
  private gap: { from: number; reason: string } | undefined;
  /** A gap whose resume keyframe is written but not yet confirmed on disk. */
  private resuming: { gap: { from: number; reason: string }; to: number } | undefined;
  private readonly gaps: { from: number; to: number; reason: string }[] = [];
  private retrying = false;
  private lastRetry = 0;

  private constructor(
    id: string,
    options: RecordingWriterOptions,
    private readonly file: BoundedFile,
    private readonly keys: BoundedFile,
    private readonly index: JsonLinesFile,
    private readonly events: JsonLinesFile,
  ) {
    this.id = id;
    this.paths = recordingPaths(options.dir, id);
    this.keyframeIntervalMs = options.keyframeIntervalMs ?? 5000;
    this.maxKeyframeIntervalMs = Math.max(
      this.keyframeIntervalMs,
      options.maxKeyframeIntervalMs ?? 30_000,
    );
    this.maxBacklog = options.maxBacklog ?? 200_000;
    this.retryAfterMs = options.retryAfterMs ?? 2000;
    this.quietMs = options.quietMs ?? 1000;
    this.maxLagBytes = options.maxLagBytes ?? 32 * 1024 * 1024;
    this.maxLagMs = options.maxLagMs ?? 60_000;
    this.now = options.now ?? Date.now;
    this.onStatus = options.onStatus;
    this.onWritten = options.onWritten;
    this.model = new DisplayModel({
      copied: (src, from, dst, to) => this.copied(src, from, dst, to),
      drawn: (layer) => {
        if (this.composing && layer !== 0) this.touchedWhileComposing.add(layer);
      },
      disposed: (layer) => {
        this.taint.delete(layer);
        if (this.composing) this.touchedWhileComposing.add(layer);
      },
    });
    file.onFailure = (error) => this.startGap(this.lastSync, describe(error));
  }

  /** Creates the files of a new recording in `options.dir`. */
  static async create(options: RecordingWriterOptions): Promise<RecordingWriter> {
    await mkdir(options.dir, { recursive: true, mode: 0o700 });
    const id = randomBytes(16).toString('base64url');
    const paths = recordingPaths(options.dir, id);
    const file = await BoundedFile.create(paths.recording, {
      maxPendingBytes: options.maxPendingBytes ?? 8 * 1024 * 1024,
    });
    const keys = await BoundedFile.create(paths.keys, { maxPendingBytes: 64 * 1024 * 1024 });
    const index = await JsonLinesFile.create(paths.index);
    const events = await JsonLinesFile.create(paths.events);
    return new RecordingWriter(id, options, file, keys, index, events);
  }

  /**
   * One server→client instruction, as it arrived, at time `t` (epoch ms). Never waits and never
   * throws: the work happens after it returns.
   */
  feed(instruction: GuacInstruction, t: number = this.now()): void {
    this.enqueue({ kind: 'instruction', t, instruction });
  }

  /** The privacy masks in force from `t` on, in desktop pixels (empty: none). */
  setMasks(rects: readonly Rect[], t: number = this.now()): void {
    const clean = rects.filter((r) => !isEmpty(r)).map((r) => ({ ...r }));
    this.enqueue({ kind: 'masks', t, rects: clean });
  }

  /** Appends an event to the event track (validated; already redacted by the caller). */
  event(input: RecordingEventInput): void {
    const parsed = RecordingEventSchema.safeParse({ ...input, t: input.t ?? this.now() });
    if (!parsed.success) {
      throw new TypeError(
        `Not a recording event (${parsed.error.issues[0]?.message ?? 'invalid'}); see RecordingEventSchema.`,
      );
    }
    this.events.append(parsed.data);
  }

  /**
   * Stops writing the picture from `t` on, for `reason` (the bridge's retention: the disk is
   * nearly full): a gap like a disk failure's, reported through onStatus, until release(). The
   * model stays current, so the recording resumes with a full keyframe. Never waits.
   */
  hold(reason: string, t: number = this.now()): void {
    this.enqueue({ kind: 'hold', t, reason });
  }

  /** Ends a hold(): writing resumes at the next frame the disk takes. */
  release(t: number = this.now()): void {
    this.enqueue({ kind: 'hold', t, reason: undefined });
  }

  /** Bytes the recording's four files take on disk now (accepted writes and reserved room). */
  get bytesOnDisk(): number {
    return this.file.accepted + this.keys.accepted + this.index.size + this.events.size;
  }

  /** Resolves once everything fed so far was handled (written to the file, or dropped). */
  async idle(): Promise<void> {
    while (this.pumping) await this.pumping;
  }

  /** Whether the writer is currently dropping frames (a gap is open). */
  get writing(): boolean {
    return this.gap === undefined && this.broken === undefined;
  }

  /**
   * Finishes the recording: waits for queued work, closes any gap, and closes the files. With
   * `endAt` (epoch ms; the bridge passes the moment it stops recording) the recording lasts until
   * then: a last, empty frame at `endAt` holds the picture, so a still screen at the end (an AI
   * clicking where nothing changes) is part of the recording and its player. Without it, the
   * recording ends with its last frame.
   */
  async close(endAt?: number): Promise<RecordingSummary> {
    this.closing = true;
    this.clearQuietTimer();
    while (this.pumping) await this.pumping;
    const last = this.startT === undefined ? this.now() : Math.max(this.lastSync, this.startT);
    const end = endAt === undefined ? last : Math.max(last, Math.round(endAt));
    if (this.startT === undefined)
      this.indexEntry({ type: 'start', version: INDEX_VERSION, t: end });
    else if (end > this.lastSync && this.gap === undefined && this.broken === undefined) {
      this.lastSync = end;
      this.out += encodeInstruction('sync', end);
      const offset = this.flush(end);
      if (offset !== undefined && this.lazy) this.syncPoints.push({ t: end, offset });
    }
    this.flush(end);
    // The keyframes still due, from the file (a recording that ends never waits for them live).
    if (this.lazy && this.broken === undefined)
      await this.catchUp().catch((error: unknown) => {
        this.breakOff(end, `the recorder failed: ${describe(error)}`);
      });
    await Promise.all([this.file.close(), this.keys.close()]);
    this.endGap(end);
    this.indexEntry({ type: 'end', t: end, bytes: this.file.confirmed });
    await Promise.all([this.index.close(), this.events.close()]);
    return {
      id: this.id,
      paths: this.paths,
      bytes: this.file.confirmed,
      start: this.startT ?? end,
      end,
      gaps: [...this.gaps],
      keyframes: this.keyframes,
      frames: this.frames,
    };
  }

  // ---- the queue ------------------------------------------------------------------------

  private enqueue(item: Item): void {
    if (this.closing || this.broken !== undefined) return;
    if (this.items.length - this.head >= this.maxBacklog) {
      this.breakOff(item.t, `the recorder fell ${this.maxBacklog} instructions behind`);
      return;
    }
    this.items.push(item);
    // pump() clears `pumping` itself, in the same turn as its last look at the queue: an item
    // queued after that look starts a new pump (cleared a turn later, it would wait for the next
    // feed, or be left behind by close()).
    this.pumping ??= Promise.resolve().then(() => this.pump());
  }

  private async pump(): Promise<void> {
    try {
      while (this.head < this.items.length && this.broken === undefined) {
        const item = this.items[this.head] as Item;
        this.items[this.head++] = undefined;
        if (this.head > 4096 && this.head * 2 > this.items.length) {
          this.items = this.items.slice(this.head);
          this.head = 0;
        }
        // The picture is needed now: the model catches up with the file and follows the stream.
        if (
          this.lazy &&
          (this.gap !== undefined ||
            (item.kind === 'masks' && item.rects.length > 0) ||
            (item.kind === 'hold' && item.reason !== undefined))
        )
          await this.goLive();
        if (item.kind === 'masks') await this.masksChanged(item.t, item.rects);
        else if (item.kind === 'hold') this.holdChanged(item.t, item.reason);
        else if (item.kind === 'catchUp') {
          if (this.lazy) await this.catchUp();
        } else {
          const pending = this.instruction(item.t, item.instruction);
          if (pending) await pending;
        }
      }
    } catch (error) {
      this.breakOff(this.lastSync, `the recorder failed: ${describe(error)}`);
    }
    if (this.broken !== undefined) {
      this.items = [];
      this.head = 0;
    }
    this.pumping = undefined;
  }

  private holdChanged(t: number, reason: string | undefined): void {
    this.held = reason;
    if (reason !== undefined) this.startGap(Math.max(this.lastSync, Math.round(t)), reason);
  }

  private breakOff(t: number, reason: string): void {
    if (this.broken !== undefined) return;
    this.broken = reason;
    this.items = [];
    this.head = 0;
    // The track says why it stopped for good, also when a gap was already open (for another reason).
    if (this.gap !== undefined) this.events.append({ t, kind: 'recording.stopped', reason });
    this.startGap(t, reason);
    this.onStatus?.({ state: 'failed', at: t, reason });
  }

  // ---- instructions ---------------------------------------------------------------------

  private instruction(t: number, instruction: GuacInstruction): Promise<void> | undefined {
    const { opcode, args } = instruction;
    if (this.startT === undefined) {
      // The recording starts with its first instruction, on the clock it is fed with.
      this.startT = t;
      this.indexEntry({ type: 'start', version: INDEX_VERSION, t });
    }
    let passes = DRAWING.has(opcode);
    if (opcode === 'img') this.imageStreams.add(Number(args[0]));
    else if (opcode === 'blob' || opcode === 'end') {
      const stream = Number(args[0]);
      passes = this.imageStreams.has(stream);
      if (opcode === 'end') this.imageStreams.delete(stream);
      if (passes && !this.fileStreams.has(stream)) passes = false;
      if (opcode === 'end') this.fileStreams.delete(stream);
    }
    // While lazy the model catches up from the file later (this instruction goes into it below).
    const applied = this.lazy ? undefined : this.model.apply(instruction);
    if (!this.lazy && DRAWING.has(opcode) && opcode !== 'mouse' && opcode !== 'cursor')
      this.drewSinceKeyframe = true;
    if (opcode === 'sync') {
      const frameEnd = (): Promise<void> => this.frameEnd(t, args[1]);
      return applied ? applied.then(frameEnd) : frameEnd();
    }
    if (passes && !this.composing && this.gap === undefined) {
      if (opcode === 'img') this.fileStreams.add(Number(args[0]));
      if (opcode === 'size' && Number(args[0]) === 0)
        this.fileScreen = { width: Number(args[1]), height: Number(args[2]) };
      this.out += encodeInstruction(opcode, ...args);
      if (this.out.length >= FLUSH_BYTES) this.flush(t);
    }
    return applied;
  }

  /**
   * Masks take effect at once, each way: the file gets a frame of its own at `t` (the masked
   * picture, or, when the last mask goes, the picture behind it and the buffers brought up to
   * date), so even an idle screen shows the change from that moment.
   */
  private async masksChanged(t: number, rects: Rect[]): Promise<void> {
    for (const r of [...this.masks, ...rects]) this.model.markDirty(r);
    this.masks = rects;
    this.drewSinceKeyframe = true;
    this.events.append({ t, kind: 'masks', rects });
    if (this.gap !== undefined) {
      // Nothing reaches the file now; the resume keyframe is composed with the masks of then.
      if (rects.length > 0) this.composing = true;
      return;
    }
    if (rects.length > 0 && !this.composing) {
      this.composing = true;
      // The server's image streams open now must not reach the file any further.
      for (const stream of this.fileStreams) this.out += encodeInstruction('end', stream);
      this.fileStreams.clear();
    }
    if (!this.composing) return;
    if (rects.length === 0) {
      await this.writeBuffers([...this.touchedWhileComposing]);
      this.touchedWhileComposing.clear();
      this.composing = false;
    }
    await this.writeScreen(this.model.takeDirty());
    const ts = Math.max(this.lastSync, Math.round(t));
    this.lastSync = ts;
    this.out += encodeInstruction('sync', ts);
    this.flush(ts);
  }

  private async frameEnd(t: number, frames: string | undefined): Promise<void> {
    const ts = Math.max(this.lastSync, Math.round(t));
    this.lastSync = ts;
    this.frames++;
    if (this.gap !== undefined) {
      await this.tryResume(ts);
      if (this.gap !== undefined) return;
    } else if (this.composing) {
      await this.writeScreen(this.model.takeDirty());
    } else if (!this.lazy) {
      this.model.takeDirty();
    }
    this.out +=
      frames === undefined ? encodeInstruction('sync', ts) : encodeInstruction('sync', ts, frames);
    const resuming = this.resuming;
    const offset = this.flush(ts, resuming && (() => this.resumed(resuming)));
    if (offset === undefined) return;
    if (this.lazy) {
      this.syncPoints.push({ t: ts, offset });
      const oldest = this.syncPoints[0]?.t ?? ts;
      if (offset - this.modelAt >= this.maxLagBytes || ts - oldest >= this.maxLagMs)
        await this.catchUp();
      else this.armQuietTimer();
      return;
    }
    // Nothing needs the model live any more (no mask, no gap): it follows the file from here.
    if (
      !this.composing &&
      this.gap === undefined &&
      this.resuming === undefined &&
      this.held === undefined
    ) {
      this.lazy = true;
      this.modelAt = offset;
      this.syncPoints = [];
      this.unconfirmed = [];
    }
    // An idle screen needs no new keyframe: a seek replays the few frames since the last one.
    if (this.drewSinceKeyframe && this.keyframeDue(ts, offset)) await this.keyframe(ts, offset);
  }

  /** Writes what was built up to the file; returns the offset after it, or undefined if dropped. */
  private flush(t: number, written?: () => void): number | undefined {
    if (this.gap !== undefined || this.broken !== undefined) {
      this.keepForModel(this.out);
      this.out = '';
      return undefined;
    }
    if (this.out.length === 0) return this.file.accepted;
    const chunk = Buffer.from(this.out, 'utf8');
    this.out = '';
    const start = this.file.accepted;
    const kept = this.lazy ? { start, chunk } : undefined;
    const confirmed = (): void => {
      if (kept !== undefined) {
        const at = this.unconfirmed.indexOf(kept);
        if (at >= 0) this.unconfirmed.splice(0, at + 1);
      }
      written?.();
    };
    if (!this.file.write(chunk, confirmed)) {
      // Dropped from the file, but the live picture has it: the model must too.
      if (kept !== undefined) this.unconfirmed.push(kept);
      this.startGap(t, this.file.failure ? describe(this.file.failure) : 'the disk is too slow');
      return undefined;
    }
    if (kept !== undefined) this.unconfirmed.push(kept);
    this.onWritten?.(this.bytesOnDisk);
    return this.file.accepted;
  }

  // ---- the model following the file --------------------------------------------------------

  /** Drawing that never reaches the file (a gap), kept for the model while it is lazy. */
  private keepForModel(text: string): void {
    if (!this.lazy || text.length === 0) return;
    this.unconfirmed.push({ start: this.file.accepted, chunk: Buffer.from(text, 'utf8') });
  }

  /**
   * Replays the file from `modelAt` to its end into the model, writing each keyframe due at the
   * frame it is due at (the model then holds exactly that frame's picture).
   */
  private async catchUp(): Promise<void> {
    this.clearQuietTimer();
    const end = this.file.accepted;
    const unconfirmed = [...this.unconfirmed];
    const points = this.syncPoints;
    this.syncPoints = [];
    let next = 0;
    for await (const batch of instructionsFrom(
      this.paths.recording,
      this.modelAt,
      end,
      unconfirmed,
    )) {
      for (const instruction of batch) {
        const { opcode } = instruction;
        if (opcode === 'sync') {
          const point = points[next++];
          // A frame the failing disk lost has no place in the file for a keyframe to point at.
          if (
            point !== undefined &&
            point.offset <= end &&
            this.drewSinceKeyframe &&
            this.keyframeDue(point.t, point.offset)
          )
            await this.keyframe(point.t, point.offset);
          continue;
        }
        const pending = this.model.apply(instruction);
        if (pending) await pending;
        if (DRAWING.has(opcode) && opcode !== 'mouse' && opcode !== 'cursor')
          this.drewSinceKeyframe = true;
      }
    }
    this.model.takeDirty();
    this.modelAt = end;
    this.unconfirmed = [];
  }

  /** The model catches up and from now on follows the stream (a mask, a gap, a hold). */
  private async goLive(): Promise<void> {
    // What this frame drew so far goes to the file first (or, in a gap, to the model's list).
    this.flush(this.lastSync);
    await this.catchUp();
    this.lazy = false;
    this.unconfirmed = [];
  }

  private armQuietTimer(): void {
    this.clearQuietTimer();
    this.quietTimer = setTimeout(() => {
      this.quietTimer = undefined;
      this.enqueue({ kind: 'catchUp', t: this.lastSync });
    }, this.quietMs);
    this.quietTimer.unref();
  }

  private clearQuietTimer(): void {
    if (this.quietTimer !== undefined) clearTimeout(this.quietTimer);
    this.quietTimer = undefined;
  }

  // ---- composed pictures ----------------------------------------------------------------

  /** Layer 0's `area` (undefined: nothing) with the masks painted black, as one image. */
  private async writeScreen(area: Rect | undefined): Promise<void> {
    const screen = this.model.screen;
    if (screen.width !== this.fileScreen.width || screen.height !== this.fileScreen.height) {
      // The server resized the desktop while its instructions were not passed through.
      this.out += encodeInstruction('size', 0, screen.width, screen.height);
      this.fileScreen = dims(screen);
    }
    if (area === undefined) return;
    const rect = clip(area, screen.width, screen.height);
    if (isEmpty(rect)) return;
    const region = maskedRegion(screen, rect, this.masks);
    const png = await encodePng(region.rgba, region.rect.width, region.rect.height);
    this.out += imageText(0, region.rect.x, region.rect.y, png, CompositeMask.OVER);
  }

  /** Buffers (and other layers) brought up to date in the file, tainted pixels blacked first. */
  private async writeBuffers(indices: number[]): Promise<void> {
    for (const index of indices) {
      if (index === 0) continue;
      this.sanitize(index);
      const surface = this.model.surfaces.get(index);
      if (surface === undefined) {
        this.out += encodeInstruction('dispose', index);
        continue;
      }
      this.out += encodeInstruction('size', index, surface.width, surface.height);
      if (surface.width === 0 || surface.height === 0) continue;
      const png = await encodePng(surface.rgba, surface.width, surface.height);
      this.out += imageText(index, 0, 0, png, CompositeMask.SRC);
    }
  }

  /** Every surface, in full: after a gap, the file's picture starts over from this. */
  private async writeEverything(): Promise<void> {
    for (const stream of this.fileStreams) this.out += encodeInstruction('end', stream);
    this.fileStreams.clear();
    await this.writeBuffers([...this.model.surfaces.keys()].filter((i) => i !== 0));
    const screen = this.model.screen;
    this.fileScreen = { width: -1, height: -1 };
    this.model.takeDirty();
    await this.writeScreen({ x: 0, y: 0, width: screen.width, height: screen.height });
  }

  private copied(src: number, from: Rect, dst: number, to: Rect): void {
    if (dst === 0) return;
    if (this.composing) this.touchedWhileComposing.add(dst);
    const dx = to.x - from.x;
    const dy = to.y - from.y;
    let sources: Rect[] = [];
    if (src === 0 && this.masks.length > 0) sources = this.masks;
    else if (src !== 0) sources = this.taint.get(src) ?? [];
    const added: Rect[] = [];
    for (const r of sources) {
      if (!intersects(r, from)) continue;
      const x = Math.max(r.x, from.x);
      const y = Math.max(r.y, from.y);
      const w = Math.min(r.x + r.width, from.x + from.width) - x;
      const h = Math.min(r.y + r.height, from.y + from.height) - y;
      added.push({ x: x + dx, y: y + dy, width: w, height: h });
    }
    if (added.length === 0) return;
    const list = this.taint.get(dst) ?? [];
    // A long masked stretch copies the same areas over and over; keep the list short.
    if (list.length + added.length > 64) {
      let box: Rect | undefined;
      for (const r of [...list, ...added]) box = union(box, r);
      this.taint.set(dst, box ? [box] : []);
    } else this.taint.set(dst, [...list, ...added]);
  }

  /** Paints a surface's tainted pixels black in the model itself, and forgets the taint. */
  private sanitize(index: number): void {
    const rects = this.taint.get(index);
    const surface = this.model.surfaces.get(index);
    this.taint.delete(index);
    if (!rects || !surface) return;
    for (const r of rects) {
      const area = clip(r, surface.width, surface.height);
      for (let y = area.y; y < area.y + area.height; y++) {
        const start = (y * surface.width + area.x) * 4;
        surface.rgba.fill(Buffer.from([0, 0, 0, 255]), start, start + area.width * 4);
      }
    }
  }

  // ---- keyframes ------------------------------------------------------------------------

  private keyframeDue(t: number, offset: number): boolean {
    const elapsed = t - this.lastKeyframeT;
    if (elapsed >= this.maxKeyframeIntervalMs) return true;
    return (
      elapsed >= this.keyframeIntervalMs &&
      offset - this.lastKeyframeOffset >= this.lastKeyframeBytes / 2
    );
  }

  private async keyframe(t: number, offset: number): Promise<void> {
    this.lastKeyframeT = t;
    this.lastKeyframeOffset = offset;
    this.drewSinceKeyframe = false;
    const pictures: { index: number; surface: Surface; png: Buffer }[] = [];
    for (const [index, surface] of this.model.surfaces) {
      if (surface.width === 0 || surface.height === 0) continue;
      const black = index === 0 ? this.masks : (this.taint.get(index) ?? []);
      const region = maskedRegion(surface, { x: 0, y: 0, ...dims(surface) }, black);
      pictures.push({
        index,
        surface,
        png: await encodePng(region.rgba, surface.width, surface.height),
      });
    }
    pictures.sort((a, b) => (a.index === 0 ? -1 : b.index === 0 ? 1 : a.index - b.index));
    this.lastKeyframeBytes = pictures.reduce((sum, p) => sum + p.png.length, 0);
    if (this.keys.failure !== undefined) await this.keys.resume().catch(() => undefined);
    const surfaces: SurfaceEntry[] = [];
    let waiting = pictures.length + 1;
    const done = (): void => {
      if (--waiting === 0) {
        this.keyframes++;
        this.indexEntry({ type: 'keyframe', t, offset, surfaces });
      }
    };
    for (const { index, surface, png } of pictures) {
      const keysOffset = this.keys.accepted;
      if (!this.keys.write(png, done)) return;
      surfaces.push({ index, ...dims(surface), keysOffset, keysLength: png.length });
    }
    // The recording's bytes up to `offset` must be on disk too before the index points there.
    this.file.whenConfirmed(offset, done);
    this.onWritten?.(this.bytesOnDisk);
  }

  // ---- gaps -----------------------------------------------------------------------------

  private startGap(t: number, reason: string): void {
    if (this.gap !== undefined) return;
    const resuming = this.resuming;
    this.resuming = undefined;
    if (resuming) {
      // The resume keyframe never reached the disk: the same gap goes on (no second report).
      this.gap = resuming.gap;
      this.out = '';
      return;
    }
    this.gap = { from: t, reason };
    this.out = '';
    this.indexEntry({ type: 'gap', from: t, to: null, reason });
    this.events.append({ t, kind: 'recording.stopped', reason });
    this.onStatus?.({ state: 'stopped', from: t, reason });
  }

  private endGap(to: number): void {
    const gap = this.gap;
    if (gap === undefined) return;
    this.gap = undefined;
    this.recordGap(gap, to);
  }

  private recordGap(gap: { from: number; reason: string }, to: number): void {
    this.gaps.push({ from: gap.from, to, reason: gap.reason });
    this.indexEntry({ type: 'gap', from: gap.from, to, reason: gap.reason });
    this.events.append({ t: to, kind: 'gap', from: gap.from, to, reason: gap.reason });
  }

  private async tryResume(t: number): Promise<void> {
    if (this.broken !== undefined || this.closing || this.held !== undefined) return;
    if (this.file.failure !== undefined) {
      if (this.retrying || t - this.lastRetry < this.retryAfterMs) return;
      this.retrying = true;
      this.lastRetry = t;
      // In the background: the live stream never waits for the disk.
      this.file.resume().then(
        () => (this.retrying = false),
        () => (this.retrying = false),
      );
      return;
    }
    const gap = this.gap;
    if (gap === undefined || this.file.pendingBytes > this.file.maxPendingBytes / 2) return;
    this.gap = undefined;
    // The file's picture starts over from a full keyframe (the index gets one here too). The
    // gap closes, and the resume is reported, once that keyframe is on disk: a disk that takes
    // the reopening but not the data (still full) must not make the status flap.
    this.resuming = { gap, to: t };
    await this.writeEverything();
    this.composing = this.masks.length > 0;
    this.touchedWhileComposing.clear();
    this.lastKeyframeT = Number.NEGATIVE_INFINITY;
    this.drewSinceKeyframe = true;
  }

  private resumed(resuming: { gap: { from: number; reason: string }; to: number }): void {
    if (this.resuming !== resuming) return;
    this.resuming = undefined;
    this.recordGap(resuming.gap, resuming.to);
    this.onStatus?.({ state: 'resumed', from: resuming.gap.from, to: resuming.to });
  }

  private indexEntry(entry: IndexEntry): void {
    this.index.append(entry);
  }
}

function describe(error: unknown): string {
  if (error instanceof Error) {
    const code = (error as NodeJS.ErrnoException).code;
    return code ? `${code}: ${error.message}` : error.message;
  }
  return String(error);
}

function dims(surface: Surface): { width: number; height: number } {
  return { width: surface.width, height: surface.height };
}
