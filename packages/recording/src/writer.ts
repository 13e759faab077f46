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
// Keeping a model current costs nearly all a recording's CPU, so while no mask is in force and no
// gap is open there is none (writerPicture.ts): keyframes name the file's draws that make the
// picture (drawReferences.ts). feed() only queues (backlog.ts: it never decodes, encodes or
// awaits), image decoding runs on sharp's thread pool, and writes are batched into one file write
// per frame (recordingOutput.ts): the live stream never waits. If the queue falls hopelessly
// behind (more than `maxBacklog` instructions) the recording stops rather than grow without
// bound. Keyframes: keyframes.ts; which server instructions pass: serverStreams.ts; gaps:
// writerGaps.ts, gapLog.ts.
//
// The disk never slows the live stream either: the file takes at most `maxPendingBytes` not yet
// written. When that is spent, or the disk fails (ENOSPC, EACCES, EIO), the writer drops frames,
// marks a gap, and keeps the model current; once the disk takes data again it writes a full
// keyframe into the recording (every surface), closes the gap and carries on.
//
// Not recorded: `nop`, clipboard/file/pipe/audio streams (their contents follow the audit's
// redaction, which is the bridge's business), `error`, `disconnect` and the handshake.
import { randomBytes } from 'node:crypto';
import { mkdir } from 'node:fs/promises';
import { encodeInstruction, type GuacInstruction } from '@overlay-companion/guac';
import { Backlog } from './backlog.js';
import { BoundedFile } from './boundedFile.js';
import { drawsPicture } from './drawing.js';
import { RecordingEventSchema } from './events.js';
import { GapLog } from './gapLog.js';
import { INDEX_VERSION, recordingPaths, type IndexEntry } from './indexFormat.js';
import { JsonLinesFile } from './jsonLinesFile.js';
import { Keyframes } from './keyframes.js';
import { isEmpty, type Rect } from './layers.js';
import { RecordingOutput } from './recordingOutput.js';
import { ServerStreams } from './serverStreams.js';
import { describe, WriterGaps } from './writerGaps.js';
import { WriterPicture } from './writerPicture.js';
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
  | { kind: 'hold'; t: number; reason: string | undefined };

export class RecordingWriter {
  readonly id: string;
  readonly paths: ReturnType<typeof recordingPaths>;
  /** The picture, kept current only while a mask is in force or a gap is open. */
  private readonly picture: WriterPicture;
  /** The frame being built, and the draws that make the picture while no model is kept. */
  private readonly output: RecordingOutput;
  private readonly keyframes: Keyframes;
  private readonly backlog: Backlog<Item>;
  private readonly now: () => number;
  private readonly onStatus: ((status: RecordingStatus) => void) | undefined;
  private readonly onWritten: ((bytes: number) => void) | undefined;
  /** Why the owner asked the writer to stop writing for now (hold()), while it is held. */
  private held: string | undefined;

  private closing = false;
  private broken: string | undefined;

  private readonly streams = new ServerStreams();
  private readonly gapLog: GapLog;

  private lastSync = 0;
  private startT: number | undefined;
  private frames = 0;
  private readonly gaps: WriterGaps;

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
    this.now = options.now ?? Date.now;
    this.onStatus = options.onStatus;
    this.onWritten = options.onWritten;
    this.gapLog = new GapLog((entry) => this.indexEntry(entry), events, this.onStatus);
    this.gaps = new WriterGaps(
      file,
      this.gapLog,
      options.retryAfterMs ?? WRITER_DEFAULTS.retryAfterMs,
    );
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
    this.output = new RecordingOutput(file);
    this.picture = new WriterPicture(this.output, this.keyframes, file, this.paths.recording);
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
    return this.gaps.open === undefined && this.broken === undefined;
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
    await this.backlog.idle();
    const last = this.startT === undefined ? this.now() : Math.max(this.lastSync, this.startT);
    const end = endAt === undefined ? last : Math.max(last, Math.round(endAt));
    if (this.startT === undefined)
      this.indexEntry({ type: 'start', version: INDEX_VERSION, t: end });
    else if (end > this.lastSync && this.gaps.open === undefined && this.broken === undefined) {
      this.lastSync = end;
      this.output.text(encodeInstruction('sync', end));
    }
    this.flush(end);
    await Promise.all([this.file.close(), this.keys.close()]);
    this.gaps.end(end);
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
    // The picture is needed now: the model is built from the file and follows the stream.
    if (
      this.picture.following &&
      (this.gaps.open !== undefined ||
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
    if (this.gaps.open !== undefined) this.events.append({ t, kind: 'recording.stopped', reason });
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
    // Without a model the references note this instruction as it goes into the file (below).
    const applied = this.picture.following ? undefined : this.picture.apply(instruction);
    if (drawsPicture(opcode)) this.keyframes.drew();
    if (opcode === 'sync') {
      const frameEnd = (): Promise<void> => this.frameEnd(t, args[1]);
      return applied ? applied.then(frameEnd) : frameEnd();
    }
    if (passes && !this.picture.composing && this.gaps.open === undefined) {
      this.streams.written(opcode, args);
      if (opcode === 'size' && Number(args[0]) === 0)
        this.picture.composed.screenSized(Number(args[1]), Number(args[2]));
      if (this.output.instruction(instruction)) this.flush(t);
    }
    return applied;
  }

  /**
   * Masks take effect at once, each way: the file gets a frame of its own at `t` (the masked
   * picture, or, when the last mask goes, the picture behind it and the buffers brought up to
   * date), so even an idle screen shows the change from that moment.
   */
  private async masksChanged(t: number, rects: Rect[]): Promise<void> {
    this.keyframes.drew();
    this.events.append({ t, kind: 'masks', rects });
    const frame = await this.picture.masksChanged(rects, this.gaps.open !== undefined, () =>
      this.streams.endAllInFile(),
    );
    if (frame === undefined) return;
    const ts = Math.max(this.lastSync, Math.round(t));
    this.lastSync = ts;
    this.output.text(frame + encodeInstruction('sync', ts));
    this.flush(ts);
  }

  private async frameEnd(t: number, frames: string | undefined): Promise<void> {
    const ts = Math.max(this.lastSync, Math.round(t));
    this.lastSync = ts;
    this.frames++;
    if (this.gaps.open !== undefined) {
      await this.tryResume(ts);
      if (this.gaps.open !== undefined) return;
    } else if (!this.picture.following) {
      this.output.text(await this.picture.frame());
    }
    this.output.text(
      frames === undefined ? encodeInstruction('sync', ts) : encodeInstruction('sync', ts, frames),
    );
    const offset = this.flush(ts, this.gaps.onResumeWritten());
    if (offset === undefined) return;
    // Nothing needs the model (no mask, no gap, no hold) once the resume keyframe is written.
    const mayFollow =
      !this.picture.composing &&
      this.gaps.open === undefined &&
      !this.gaps.resumingNow &&
      this.held === undefined;
    await this.picture.frameWritten(ts, offset, mayFollow);
  }

  /** Writes what was built up to the file; returns the offset after it, or undefined if dropped. */
  private flush(t: number, written?: () => void): number | undefined {
    if (this.gaps.open !== undefined || this.broken !== undefined) {
      this.output.drop();
      return undefined;
    }
    const flushed = this.output.flush(written);
    if ('refused' in flushed) {
      this.startGap(t, this.file.failure ? describe(this.file.failure) : 'the disk is too slow');
      return undefined;
    }
    this.onWritten?.(this.bytesOnDisk);
    return flushed.offset;
  }

  // ---- the model, built when the picture is needed ------------------------------------------

  /** The model is built from the file and from now on follows the stream (a mask, a gap, a hold). */
  private async goLive(): Promise<void> {
    // What this frame drew so far goes to the file first (or, in a gap, to the references).
    this.flush(this.lastSync);
    await this.picture.goLive();
  }

  // ---- gaps -----------------------------------------------------------------------------

  private startGap(t: number, reason: string): void {
    if (this.gaps.start(t, reason)) this.output.drop();
  }

  private async tryResume(t: number): Promise<void> {
    if (this.broken !== undefined || this.closing || this.held !== undefined) return;
    if (!this.gaps.mayResume(t)) return;
    // The file's picture starts over from a full keyframe (the index gets one here too); image
    // streams open in the file are ended there first.
    this.output.text(this.streams.endAllInFile());
    this.output.text(await this.picture.everything());
    this.keyframes.restart();
  }

  private indexEntry(entry: IndexEntry): void {
    this.index.append(entry);
  }
}
