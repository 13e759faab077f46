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
// layer 0 from the display model with the masks painted black, as one PNG. Pixels buffers copied
// from under a mask are painted black before any buffer is written (maskTaint.ts: when the masks
// go and the file's buffers must be brought up to date, in keyframes, after a gap). Mask changes
// take effect at once, with a frame of their own in the file at that moment (an image stream
// open when a mask appears is ended in the file and the rest of it dropped).
//
// Keeping the model current costs nearly all a recording's CPU, so while no mask is in force and
// no gap is open the model follows the file, later (fileFollowingModel.ts); while a mask is in
// force or a gap is open every instruction is applied as it comes. feed() only queues
// (backlog.ts: it never decodes, encodes or awaits), image decoding runs on sharp's thread pool,
// and writes are batched into one file write per frame: the live stream never waits. If the
// queue falls hopelessly behind (more than `maxBacklog` instructions) the recording stops rather
// than grow without bound. Keyframes and their index lines: keyframes.ts; the pictures the
// writer composes itself: composedFrames.ts; which server instructions pass: serverStreams.ts;
// how a gap is told: gapLog.ts.
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
import { Backlog } from './backlog.js';
import { BoundedFile } from './boundedFile.js';
import { ComposedFrames } from './composedFrames.js';
import { DisplayModel } from './displayModel.js';
import { drawsPicture } from './drawing.js';
import { RecordingEventSchema } from './events.js';
import { FileFollowingModel } from './fileFollowingModel.js';
import { GapLog, type Gap } from './gapLog.js';
import { INDEX_VERSION, recordingPaths, type IndexEntry } from './indexFormat.js';
import { JsonLinesFile } from './jsonLinesFile.js';
import { Keyframes } from './keyframes.js';
import { isEmpty, type Rect } from './layers.js';
import { MaskTaint } from './maskTaint.js';
import { ServerStreams } from './serverStreams.js';
import {
  WRITER_DEFAULTS,
  type RecordingEventInput,
  type RecordingStatus,
  type RecordingSummary,
  type RecordingWriterOptions,
} from './writerOptions.js';

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
  /** The model following the file while nothing needs it live. */
  private readonly follower: FileFollowingModel;
  private readonly keyframes: Keyframes;
  private readonly backlog: Backlog<Item>;
  private readonly retryAfterMs: number;
  private readonly now: () => number;
  private readonly onStatus: ((status: RecordingStatus) => void) | undefined;
  private readonly onWritten: ((bytes: number) => void) | undefined;
  /** Why the owner asked the writer to stop writing for now (hold()), while it is held. */
  private held: string | undefined;

  private closing = false;
  private broken: string | undefined;

  private masks: Rect[] = [];
  /** True while a mask is in force: the file gets composed frames, not the server's drawing. */
  private composing = false;
  /** Per buffer, rectangles holding screen pixels that were under a mask. */
  private readonly taint = new MaskTaint();
  /** Surfaces other than layer 0 drawn on while composing (the file has not seen it). */
  private readonly touchedWhileComposing = new Set<number>();
  private readonly streams = new ServerStreams();
  private readonly composed: ComposedFrames;
  private readonly gapLog: GapLog;

  private out = '';
  private lastSync = 0;
  private startT: number | undefined;
  private frames = 0;
  private gap: Gap | undefined;
  /** A gap whose resume keyframe is written but not yet confirmed on disk. */
  private resuming: { gap: Gap; to: number } | undefined;
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
    const keyframeIntervalMs = options.keyframeIntervalMs ?? WRITER_DEFAULTS.keyframeIntervalMs;
    this.retryAfterMs = options.retryAfterMs ?? WRITER_DEFAULTS.retryAfterMs;
    this.now = options.now ?? Date.now;
    this.onStatus = options.onStatus;
    this.onWritten = options.onWritten;
    this.model = new DisplayModel({
      copied: (src, from, dst, to) => {
        if (dst === 0) return;
        if (this.composing) this.touchedWhileComposing.add(dst);
        this.taint.copied(src, from, dst, to, this.masks);
      },
      drawn: (layer) => {
        if (this.composing && layer !== 0) this.touchedWhileComposing.add(layer);
      },
      disposed: (layer) => {
        this.taint.forget(layer);
        if (this.composing) this.touchedWhileComposing.add(layer);
      },
    });
    this.composed = new ComposedFrames(this.model, this.taint);
    this.gapLog = new GapLog((entry) => this.indexEntry(entry), events, this.onStatus);
    this.keyframes = new Keyframes({
      keyframeIntervalMs,
      maxKeyframeIntervalMs: Math.max(
        keyframeIntervalMs,
        options.maxKeyframeIntervalMs ?? WRITER_DEFAULTS.maxKeyframeIntervalMs,
      ),
      keys: this.keys,
      recording: file,
      index: (entry) => this.indexEntry(entry),
      written: () => this.onWritten?.(this.bytesOnDisk),
    });
    this.follower = new FileFollowingModel({
      model: this.model,
      path: this.paths.recording,
      quietMs: options.quietMs ?? WRITER_DEFAULTS.quietMs,
      maxLagBytes: options.maxLagBytes ?? WRITER_DEFAULTS.maxLagBytes,
      maxLagMs: options.maxLagMs ?? WRITER_DEFAULTS.maxLagMs,
      quiet: () => this.enqueue({ kind: 'catchUp', t: this.lastSync }),
      keyframeDue: (point) => this.keyframes.due(point.t, point.offset),
      frameReplayed: (point) => this.keyframe(point.t, point.offset),
      applied: ({ opcode }) => {
        if (drawsPicture(opcode)) this.keyframes.drew();
      },
    });
    this.backlog = new Backlog<Item>(
      options.maxBacklog ?? WRITER_DEFAULTS.maxBacklog,
      (item) => this.work(item),
      () => this.broken !== undefined,
      (error) => this.breakOff(this.lastSync, `the recorder failed: ${describe(error)}`),
    );
    file.onFailure = (error) => this.startGap(this.lastSync, describe(error));
  }

  /** Creates the files of a new recording in `options.dir`. */
  static async create(options: RecordingWriterOptions): Promise<RecordingWriter> {
    await mkdir(options.dir, { recursive: true, mode: 0o700 });
    const id = randomBytes(16).toString('base64url');
    const paths = recordingPaths(options.dir, id);
    const file = await BoundedFile.create(paths.recording, {
      maxPendingBytes: options.maxPendingBytes ?? WRITER_DEFAULTS.maxPendingBytes,
    });
    const keys = await BoundedFile.create(paths.keys, {
      maxPendingBytes: WRITER_DEFAULTS.maxPendingKeyBytes,
    });
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
    await this.backlog.idle();
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
    this.follower.clearQuietTimer();
    await this.backlog.idle();
    const last = this.startT === undefined ? this.now() : Math.max(this.lastSync, this.startT);
    const end = endAt === undefined ? last : Math.max(last, Math.round(endAt));
    if (this.startT === undefined)
      this.indexEntry({ type: 'start', version: INDEX_VERSION, t: end });
    else if (end > this.lastSync && this.gap === undefined && this.broken === undefined) {
      this.lastSync = end;
      this.out += encodeInstruction('sync', end);
      const offset = this.flush(end);
      if (offset !== undefined && this.follower.following) this.follower.frameWritten(end, offset);
    }
    this.flush(end);
    // The keyframes still due, from the file (a recording that ends never waits for them live).
    if (this.follower.following && this.broken === undefined)
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
      gaps: [...this.gapLog.closed],
      keyframes: this.keyframes.count,
      frames: this.frames,
    };
  }

  // ---- the queue ------------------------------------------------------------------------

  private enqueue(item: Item): void {
    if (this.closing || this.broken !== undefined) return;
    if (!this.backlog.push(item))
      this.breakOff(item.t, `the recorder fell ${this.backlog.max} instructions behind`);
  }

  /** One item of the queue; a promise when it must be waited for. */
  private work(item: Item): Promise<void> | undefined {
    // The picture is needed now: the model catches up with the file and follows the stream.
    if (
      this.follower.following &&
      (this.gap !== undefined ||
        (item.kind === 'masks' && item.rects.length > 0) ||
        (item.kind === 'hold' && item.reason !== undefined))
    ) {
      return (async () => {
        await this.goLive();
        const pending = this.handle(item);
        if (pending) await pending;
      })();
    }
    return this.handle(item);
  }

  private handle(item: Item): Promise<void> | undefined {
    switch (item.kind) {
      case 'masks':
        return this.masksChanged(item.t, item.rects);
      case 'hold':
        this.holdChanged(item.t, item.reason);
        return undefined;
      case 'catchUp':
        return this.follower.following ? this.catchUp() : undefined;
      case 'instruction':
        return this.instruction(item.t, item.instruction);
      default: {
        const never: never = item;
        throw new Error(`unknown item ${JSON.stringify(never)}`);
      }
    }
  }

  private holdChanged(t: number, reason: string | undefined): void {
    this.held = reason;
    if (reason !== undefined) this.startGap(Math.max(this.lastSync, Math.round(t)), reason);
  }

  private breakOff(t: number, reason: string): void {
    if (this.broken !== undefined) return;
    this.broken = reason;
    this.backlog.clear();
    // The track says why it stopped for good, also when a gap was already open (for another reason).
    if (this.gap !== undefined) this.events.append({ t, kind: 'recording.stopped', reason });
    this.startGap(t, reason);
    this.gapLog.failed(t, reason);
  }

  // ---- instructions ---------------------------------------------------------------------

  private instruction(t: number, instruction: GuacInstruction): Promise<void> | undefined {
    const { opcode, args } = instruction;
    if (this.startT === undefined) {
      // The recording starts with its first instruction, on the clock it is fed with.
      this.startT = t;
      this.indexEntry({ type: 'start', version: INDEX_VERSION, t });
    }
    const passes = this.streams.passes(opcode, args);
    // While lazy the model catches up from the file later (this instruction goes into it below).
    const live = !this.follower.following;
    const applied = live ? this.model.apply(instruction) : undefined;
    if (live && drawsPicture(opcode)) this.keyframes.drew();
    if (opcode === 'sync') {
      const frameEnd = (): Promise<void> => this.frameEnd(t, args[1]);
      return applied ? applied.then(frameEnd) : frameEnd();
    }
    if (passes && !this.composing && this.gap === undefined) {
      this.streams.written(opcode, args);
      if (opcode === 'size' && Number(args[0]) === 0)
        this.composed.screenSized(Number(args[1]), Number(args[2]));
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
    this.keyframes.drew();
    this.events.append({ t, kind: 'masks', rects });
    if (this.gap !== undefined) {
      // Nothing reaches the file now; the resume keyframe is composed with the masks of then.
      if (rects.length > 0) this.composing = true;
      return;
    }
    if (rects.length > 0 && !this.composing) {
      this.composing = true;
      // The server's image streams open now must not reach the file any further.
      this.out += this.streams.endAllInFile();
    }
    if (!this.composing) return;
    if (rects.length === 0) {
      this.out += await this.composed.buffers([...this.touchedWhileComposing]);
      this.touchedWhileComposing.clear();
      this.composing = false;
    }
    this.out += await this.composed.screen(this.model.takeDirty(), this.masks);
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
      this.out += await this.composed.screen(this.model.takeDirty(), this.masks);
    } else if (!this.follower.following) {
      this.model.takeDirty();
    }
    this.out +=
      frames === undefined ? encodeInstruction('sync', ts) : encodeInstruction('sync', ts, frames);
    const resuming = this.resuming;
    const offset = this.flush(ts, resuming && (() => this.resumed(resuming)));
    if (offset === undefined) return;
    if (this.follower.following) {
      this.follower.frameWritten(ts, offset);
      if (this.follower.dueNow(ts, offset)) await this.catchUp();
      return;
    }
    // Nothing needs the model live any more (no mask, no gap): it follows the file from here.
    if (
      !this.composing &&
      this.gap === undefined &&
      this.resuming === undefined &&
      this.held === undefined
    )
      this.follower.followFrom(offset);
    // An idle screen needs no new keyframe: a seek replays the few frames since the last one.
    if (this.keyframes.due(ts, offset)) await this.keyframe(ts, offset);
  }

  /** Writes what was built up to the file; returns the offset after it, or undefined if dropped. */
  private flush(t: number, written?: () => void): number | undefined {
    if (this.gap !== undefined || this.broken !== undefined) {
      // Drawing that never reaches the file, kept for the model while it follows the file.
      this.follower.keepForModel(this.file.accepted, this.out);
      this.out = '';
      return undefined;
    }
    if (this.out.length === 0) return this.file.accepted;
    const chunk = Buffer.from(this.out, 'utf8');
    this.out = '';
    const start = this.file.accepted;
    const kept = this.follower.chunkFor(start, chunk);
    const confirmed = (): void => {
      this.follower.confirmed(kept);
      written?.();
    };
    if (!this.file.write(chunk, confirmed)) {
      // Dropped from the file, but the live picture has it: the model must too.
      this.follower.track(kept);
      this.startGap(t, this.file.failure ? describe(this.file.failure) : 'the disk is too slow');
      return undefined;
    }
    this.follower.track(kept);
    this.onWritten?.(this.bytesOnDisk);
    return this.file.accepted;
  }

  // ---- the model following the file --------------------------------------------------------

  /** The model catches up with everything the file took (the keyframes due on the way). */
  private async catchUp(): Promise<void> {
    await this.follower.catchUp(this.file.accepted);
  }

  /** The model catches up and from now on follows the stream (a mask, a gap, a hold). */
  private async goLive(): Promise<void> {
    // What this frame drew so far goes to the file first (or, in a gap, to the model's list).
    this.flush(this.lastSync);
    await this.catchUp();
    this.follower.stopFollowing();
  }

  // ---- keyframes ------------------------------------------------------------------------

  /** The model's picture as the keyframe at `t`, `offset` (masks and taint painted black). */
  private keyframe(t: number, offset: number): Promise<void> {
    return this.keyframes.write(this.model, t, offset, this.masks, (index) => this.taint.of(index));
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
    this.gapLog.opened(this.gap);
  }

  private endGap(to: number): void {
    const gap = this.gap;
    if (gap === undefined) return;
    this.gap = undefined;
    this.gapLog.close(gap, to);
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
    // Image streams open in the file are ended there first; the file's picture starts over.
    this.out += this.streams.endAllInFile();
    this.out += await this.composed.everything(this.masks);
    this.composing = this.masks.length > 0;
    this.touchedWhileComposing.clear();
    this.keyframes.restart();
  }

  private resumed(resuming: { gap: Gap; to: number }): void {
    if (this.resuming !== resuming) return;
    this.resuming = undefined;
    this.gapLog.resumed(resuming.gap, resuming.to);
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
