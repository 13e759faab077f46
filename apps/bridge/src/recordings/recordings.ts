// The bridge's session recordings: which desktops are recorded (recordingPolicy.ts), a recorder
// on each open desktop connection while its recording is on (recorder.ts: the bridge joins the
// connection as its own Guacamole user), the desktop's privacy masks handed to the writer
// whenever they change, the event track fed from what the bridge audits, one row per recording
// in the store, and what each window's desktop_state says about it. A recording starts when a
// desktop's connection opens (or its recording is turned on while open) and ends with the
// connection (or when it is turned off); the files are in `<dataDir>/recordings` (0700), named by
// a random id only. With an S3 store configured (storage/), that folder is the spool: a
// recording is moved to the bucket once it has ended (and at start, what a previous run left),
// and read from there through the same RecordingFiles as a local one.
//
// Keeping them (retention.ts has the rules): at start, every minute and whenever the recordings
// being written have grown by another step, the recordings past the admin's limits (age, total
// size, size per desktop) are deleted, oldest first and audited; a recording being written is
// never deleted but rotated — ended, and a new one of the same connection started. Below the
// free space to keep, recordings stop writing (a gap, and the windows say why) until there is
// room again.
import { mkdir, readdir, stat, statfs } from 'node:fs/promises';
import type { Logger } from 'pino';
import type { DesktopStateMessage } from '@overlay-companion/protocol';
import {
  RecordingReader,
  RecordingWriter,
  recordingPaths,
  type Rect,
  type RecordingEventInput,
  type RecordingStatus,
  type RecordingWriterOptions,
} from '@overlay-companion/recording';
import type { AuditInput } from '../audit/auditLog.js';
import type { OverlayChange } from '../relay/overlayRelay.js';
import type { RecordingRecord, Store } from '../store/types.js';
import type { ConnectionJoin, ConnectionObserver } from '../tunnel/desktopConnections.js';
import { OverlayTrack } from './overlayTrack.js';
import { ConnectionRecorder } from './recorder.js';
import { RecordingPolicy, type RecordingDecision } from './recordingPolicy.js';
import { LocalFiles } from './storage/localFiles.js';
import { MovingFiles } from './storage/movingFiles.js';
import type { RecordingFiles } from './storage/recordingFiles.js';
import { S3NotConfigured, outOfReach } from './storage/s3NotConfigured.js';
import type { S3Files } from './storage/s3Files.js';
import { SpoolMover } from './storage/spoolMover.js';
import {
  MIN_PIECE_MS,
  formatBytes,
  planRetention,
  rotationDue,
  smallestCap,
  type RetentionLimits,
} from './retention.js';

export type RecordingIndicator = NonNullable<DesktopStateMessage['recording']>;

export interface RecordingsOptions {
  store: Store;
  /** Where the files go (`<dataDir>/recordings`). */
  dir: string;
  logger: Logger;
  /** serve --record / OC_RECORD=1: every desktop without a setting of its own is recorded. */
  recordByDefault?: boolean | undefined;
  /** The privacy masks in force on a desktop now (its owner's layout), in desktop pixels. */
  masks(desktopId: string): Promise<readonly Rect[]>;
  /** Writer tuning (tests: keyframe interval, disk limits). */
  writer?: Omit<RecordingWriterOptions, 'dir' | 'onStatus' | 'onWritten'> | undefined;
  /** Where deletions by retention are audited (the bridge's audit log). */
  audit?: ((entry: AuditInput) => void) | undefined;
  /** Retention's timing (tests make it quick). */
  retention?: RetentionTiming | undefined;
  /** Free and total bytes of the disk holding `dir` (default: statfs). */
  diskSpace?: ((dir: string) => Promise<DiskSpace>) | undefined;
  /** The S3 store finished recordings are moved to (connected); absent: they stay in `dir`. */
  s3?: S3Files | undefined;
}

export interface RetentionTiming {
  /** How often retention runs besides at start and as recordings grow (default 60 s). */
  intervalMs?: number | undefined;
  /** How young a recording may be rotated for its size (default MIN_PIECE_MS, 5 s). */
  minPieceMs?: number | undefined;
}

export interface DiskSpace {
  freeBytes: number;
  sizeBytes: number;
}

/** What one retention pass did. */
export interface RetentionOutcome {
  removed: { id: string; desktopId: string; bytes: number; reason: string }[];
  rotated: { desktopId: string; reason: string }[];
  /** Why recordings are held (the disk is nearly full); null when they may write. */
  held: string | null;
}

const RETENTION_INTERVAL_MS = 60_000;
/** A recording's files, named by its random id (22 base64url characters). */
const RECORDING_FILE = /^([A-Za-z0-9_-]{22})\.(guac|keys|index\.jsonl|events\.jsonl)$/;

interface Active {
  id: string;
  since: number;
  writer: RecordingWriter;
  recorder: ConnectionRecorder | undefined;
  /** Why writing stopped (disk full, fell behind), while it is stopped. */
  stoppedReason: string | null;
  /** Bytes its files take, as the writer last said. */
  bytes: number;
  /** A rotation of it is queued or under way. */
  rotating: boolean;
  /** Held for lack of free space (writer.hold). */
  held: boolean;
}

export class Recordings implements ConnectionObserver {
  readonly policy: RecordingPolicy;
  private readonly joins = new Map<string, ConnectionJoin>();
  private readonly active = new Map<string, Active>();
  /**
   * Recordings ended but whose files and row are still being finished: still live to the API
   * (not deletable, not listed as ended before their end and gaps are written).
   */
  private readonly finishing = new Set<string>();
  /** Per desktop, the work in flight (start, stop), so they happen one after the other. */
  private readonly queues = new Map<string, Promise<void>>();
  private readonly listeners = new Set<(desktopId: string) => void>();
  /** Each desktop's overlays as its windows show them (a recording starts with these drawn). */
  private readonly overlays = new OverlayTrack();
  /** Masks set per desktop (a count, and the last), so one saved while a recording starts holds. */
  private readonly maskChanges = new Map<string, number>();
  private readonly latestMasks = new Map<string, readonly Rect[]>();
  private closed = false;
  /** Retention: the limits last read, the pass under way and whether another is wanted. */
  private limits: RetentionLimits | undefined;
  private pass: Promise<RetentionOutcome> | undefined;
  private passAgain = false;
  private timer: NodeJS.Timeout | undefined;
  /** Bytes the recordings being written have grown by since the last pass. */
  private grown = 0;
  /** Why recordings are held for lack of free space (null: they are not). */
  private heldFor: string | null = null;
  private readonly local: LocalFiles;
  /** Moves ended recordings to the S3 store, when there is one. */
  private readonly mover: SpoolMover | undefined;
  private moving: MovingFiles | undefined;
  private noS3: S3NotConfigured | undefined;

  constructor(private readonly options: RecordingsOptions) {
    this.policy = new RecordingPolicy(options.store, options.recordByDefault === true);
    this.local = new LocalFiles(options.dir);
    this.mover =
      options.s3 === undefined
        ? undefined
        : new SpoolMover(options.s3, this.local, options.store, options.logger);
  }

  get dir(): string {
    return this.options.dir;
  }

  /** Where finished recordings are kept: the data dir ('local'), or an S3 bucket ('s3'). */
  get location(): 'local' | 's3' {
    return this.options.s3 === undefined ? 'local' : 's3';
  }

  /** Where the recording's files are read from (its row says where they are). */
  files(recording: Pick<RecordingRecord, 'location'>): RecordingFiles {
    const { s3 } = this.options;
    if (s3 === undefined)
      return recording.location === 's3' ? (this.noS3 ??= new S3NotConfigured()) : this.local;
    // A local one may be moved while it is read: the bucket has it once the local copy is gone.
    return recording.location === 's3' ? s3 : (this.moving ??= new MovingFiles(this.local, s3));
  }

  /** Every move to the S3 store queued so far, done (tests). */
  async moved(): Promise<void> {
    await this.mover?.settled();
  }

  /** Why recordings are not writing for lack of free space now (null: they may write). */
  heldReason(): string | null {
    return this.heldFor;
  }

  /**
   * Closes the rows a previous run left open (the bridge stopped without finishing them): their
   * end, size and gaps as the files say; removes files no row lists (a recording whose start
   * was cut short); then runs retention once (which also measures the rows of an older bridge
   * that did not count every file) and every minute from now on. Call once at start, before any connection
   * opens.
   */
  async recover(): Promise<void> {
    const { store, dir } = this.options;
    await mkdir(dir, { recursive: true, mode: 0o700 });
    const rows = await store.recordings.list();
    for (const row of rows) {
      if (this.liveIds().has(row.id) || row.location !== 'local' || row.endedAt !== null) continue;
      const reader = await RecordingReader.open(dir, row.id).catch(() => undefined);
      const end = Math.max(reader?.end ?? row.startedAt, row.startedAt);
      await store.recordings.update(row.id, {
        endedAt: end,
        bytes: await stat(recordingPaths(dir, row.id).recording).then(
          (s) => s.size,
          () => 0,
        ),
        gaps: (reader?.gaps ?? []).map((g) => ({
          from: g.from,
          to: g.to ?? end,
          reason: g.reason,
        })),
        storedBytes: await this.local.bytes(row.id),
      });
    }
    await this.removeUnlisted(new Set(rows.map((r) => r.id)));
    const unreachable = rows.filter((r) => outOfReach(r, this.location)).length;
    if (unreachable > 0)
      this.options.logger.warn(
        { recordings: unreachable },
        'recordings kept on an S3 store cannot be played, exported or deleted (nor aged out by retention): start the bridge with the same --recordings-s3 (or OC_RECORDINGS_S3_URL) it had when they were moved there',
      );
    // With an S3 store, what a previous run left in the spool goes there now (retention moves
    // what is still left at each pass); an `s3` row's local leftovers (a move cut short after
    // its row was marked) are removed by the same move.
    for (const row of rows)
      if (row.location === 's3' && (await this.local.bytes(row.id)) > 0) this.mover?.move(row.id);
    await this.enforceRetention();
    this.timer ??= setInterval(
      () => void this.enforceRetention().catch(() => undefined),
      this.options.retention?.intervalMs ?? RETENTION_INTERVAL_MS,
    );
    this.timer.unref();
  }

  /**
   * Runs retention now (or once more after the pass under way): deletes what is past the limits,
   * rotates what is being written where it must, and holds or releases the recordings for the
   * disk's free space. Resolves with what the pass did.
   */
  enforceRetention(): Promise<RetentionOutcome> {
    if (this.pass !== undefined) {
      this.passAgain = true;
      return this.pass;
    }
    const pass = (async (): Promise<RetentionOutcome> => {
      let outcome: RetentionOutcome;
      do {
        this.passAgain = false;
        this.grown = 0;
        outcome = await this.retentionPass().catch((err: unknown) => {
          this.options.logger.warn({ err }, 'recordings retention failed; it runs again later');
          return { removed: [], rotated: [], held: this.heldFor };
        });
      } while (this.passAgain && !this.closed);
      return outcome;
    })();
    this.pass = pass;
    void pass.finally(() => {
      if (this.pass === pass) this.pass = undefined;
    });
    return pass;
  }

  /** The limits in force (read at each pass; the settings API changes them). */
  async retentionLimits(): Promise<RetentionLimits> {
    this.limits = await this.policy.retention();
    return this.limits;
  }

  /** Bytes each recording being written takes now, by id. */
  liveBytes(): ReadonlyMap<string, number> {
    return new Map([...this.active.values()].map((a) => [a.id, a.bytes]));
  }

  /** Free and total bytes of the recordings' disk (undefined when it cannot be read). */
  async diskSpace(): Promise<DiskSpace | undefined> {
    const read = this.options.diskSpace ?? statfsSpace;
    return read(this.options.dir).catch(() => undefined);
  }

  /**
   * Deletes a finished recording's files and its row. Returns false (and deletes nothing) while
   * it is being written. Auditing is the caller's.
   */
  async remove(recording: RecordingRecord): Promise<boolean> {
    if (this.liveIds().has(recording.id)) return false;
    // Not while it is being moved: its objects would be put back after they were deleted.
    await this.mover?.cancel(recording.id);
    const current = await this.options.store.recordings.byId(recording.id);
    // Every copy where it may be (the bucket's too); refused when this bridge cannot reach it.
    await this.files(current ?? recording).remove(recording.id);
    await this.local.remove(recording.id);
    await this.options.store.recordings.remove(recording.id);
    return true;
  }

  /** Called whenever a desktop's recording indicator changes (desktop_state follows). */
  onChange(listener: (desktopId: string) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  connectionOpened(desktopId: string, join: ConnectionJoin): void {
    this.joins.set(desktopId, join);
    void this.reconsider(desktopId);
  }

  connectionEnded(desktopId: string): void {
    this.joins.delete(desktopId);
    void this.reconsider(desktopId);
  }

  /** The desktop's setting or the bridge's changed: start or stop its recording to match. */
  reconsider(desktopId: string): Promise<void> {
    return this.enqueue(desktopId, () => this.apply(desktopId));
  }

  /** Runs `work` after the desktop's earlier starts, stops and rotations. */
  private enqueue(desktopId: string, work: () => Promise<void>): Promise<void> {
    const previous = this.queues.get(desktopId) ?? Promise.resolve();
    const next = previous
      .then(work)
      .catch((err: unknown) =>
        this.options.logger.warn({ err, desktopId }, 'recording could not be started or stopped'),
      );
    this.queues.set(desktopId, next);
    void next.then(() => {
      if (this.queues.get(desktopId) === next) this.queues.delete(desktopId);
    });
    return next;
  }

  /** Settles every start and stop asked for so far (tests). */
  async settled(): Promise<void> {
    while (this.queues.size > 0) await Promise.all([...this.queues.values()]);
  }

  /** The privacy masks of a desktop changed (its owner saved a layout). */
  setMasks(desktopId: string, rects: readonly Rect[]): void {
    this.latestMasks.set(desktopId, rects);
    this.maskChanges.set(desktopId, (this.maskChanges.get(desktopId) ?? 0) + 1);
    this.active.get(desktopId)?.writer.setMasks(rects);
  }

  /** An event for the desktop's recording, if it is being recorded (already redacted). */
  event(desktopId: string, input: RecordingEventInput): void {
    const active = this.active.get(desktopId);
    if (active === undefined) return;
    try {
      active.writer.event(input);
    } catch (err) {
      this.options.logger.warn({ err, kind: input.kind }, 'a recording event was not valid');
    }
  }

  /** A desktop's overlays changed (its hub's copy): drawn and removed events follow. */
  overlaysChanged(desktopId: string, change: OverlayChange): void {
    for (const event of this.overlays.changed(desktopId, change)) this.event(desktopId, event);
  }

  /** Ids of the recordings being made now (or being finished). */
  liveIds(): ReadonlySet<string> {
    return new Set([...[...this.active.values()].map((a) => a.id), ...this.finishing]);
  }

  /** The desktop's recording id being made now, if any. */
  liveOn(desktopId: string): string | undefined {
    return this.active.get(desktopId)?.id;
  }

  /** What a window of `personId` is told about the desktop's recording (desktop_state). */
  indicator(desktopId: string, viewer: { inCharge: boolean }): RecordingIndicator {
    const active = this.active.get(desktopId);
    const decision = this.policy.cached(desktopId);
    return {
      on: active !== undefined,
      since: active?.since ?? null,
      stopped_reason: active?.stoppedReason ?? null,
      may_change: viewer.inCharge && mayPersonChange(decision),
    };
  }

  /** Stops every recording (the bridge is closing) and waits for the files. */
  async close(): Promise<void> {
    this.closed = true;
    if (this.timer !== undefined) clearInterval(this.timer);
    this.timer = undefined;
    this.joins.clear();
    for (const desktopId of [...this.active.keys()]) void this.reconsider(desktopId);
    await this.settled();
    await this.pass?.catch(() => undefined);
    await this.mover?.close();
    this.options.s3?.close();
  }

  private async apply(desktopId: string): Promise<void> {
    const decision = await this.policy.decide(desktopId);
    const wanted = !this.closed && this.joins.has(desktopId) && decision.on;
    const active = this.active.get(desktopId);
    if (wanted && active === undefined) await this.start(desktopId);
    else if (!wanted && active !== undefined) await this.stop(desktopId, active);
    this.changed(desktopId);
  }

  /**
   * Starts the desktop's recording: a new writer, its row, the recorder joined to the connection.
   * With `previous` (a rotation), that recording is still being written meanwhile and is ended
   * by the caller once this one has joined; if this one cannot start, `previous` stays.
   */
  private async start(desktopId: string, previous?: Active): Promise<void> {
    const join = this.joins.get(desktopId);
    if (join === undefined) return;
    const { store, logger } = this.options;
    const log = logger.child({ desktopId });
    const maskChangesBefore = this.maskChanges.get(desktopId) ?? 0;
    const made: { active?: Active } = {};
    const writer = await RecordingWriter.create({
      ...this.options.writer,
      dir: this.options.dir,
      onStatus: (status) => {
        if (made.active !== undefined) this.statusChanged(desktopId, made.active, status, log);
      },
      onWritten: (bytes) => {
        if (made.active !== undefined) this.written(desktopId, made.active, bytes);
      },
    });
    const since = Date.now();
    const active: Active = {
      id: writer.id,
      since,
      writer,
      recorder: undefined,
      stoppedReason: null,
      bytes: writer.bytesOnDisk,
      rotating: false,
      held: false,
    };
    made.active = active;
    // Masks first: nothing of the desktop reaches the writer before it knows what to black out.
    writer.setMasks(await this.options.masks(desktopId).catch(() => []));
    const owner = await store.desktops.byId(desktopId);
    await store.recordings.add({
      id: writer.id,
      desktopId,
      ownerId: owner?.ownerId ?? null,
      startedAt: since,
    });
    this.enter(desktopId, active, since);
    // A layout saved while this was starting found no recording to tell: its masks win over
    // the ones read above (still before the writer has seen anything of the desktop).
    if ((this.maskChanges.get(desktopId) ?? 0) !== maskChangesBefore)
      writer.setMasks(this.latestMasks.get(desktopId) ?? []);
    if (previous !== undefined)
      this.event(desktopId, { kind: 'recording.rotated', t: since, previous: previous.id });
    // The overlays on screen as it starts are part of the picture from its first moment.
    for (const event of this.overlays.onScreen(desktopId, since)) this.event(desktopId, event);
    try {
      active.recorder = await ConnectionRecorder.join(join, writer, log, () => {
        // The desktop ended the recorder's connection by itself: this recording is over.
        if (this.active.get(desktopId) === active) {
          this.joins.delete(desktopId);
          void this.reconsider(desktopId);
        }
      });
    } catch (err) {
      // The connection ended as we joined (the last window left): no recording after all.
      if (previous !== undefined) this.enter(desktopId, previous);
      else this.active.delete(desktopId);
      await this.finish(active);
      throw err;
    }
    log.info({ recording: writer.id, previous: previous?.id }, 'recording started');
  }

  /**
   * Makes `active` the desktop's recording being written, held or released as the disk's free
   * space says now. In the same step, with no await between: a hold (or release) decided while a
   * start awaited the store (a rotation's new piece; slow on PostgreSQL) went to the recordings
   * in the map then, not to this one, which would have written on a nearly full disk until the
   * next pass. `since`: a new recording's start, so its gap covers it from its first moment.
   */
  private enter(desktopId: string, active: Active, since?: number): void {
    this.active.set(desktopId, active);
    this.applyHold(active, since);
  }

  /** Holds or releases one recording being written to match heldFor. */
  private applyHold(active: Active, t?: number): void {
    if (this.heldFor !== null && !active.held) {
      active.held = true;
      active.writer.hold(this.heldFor, t);
    } else if (this.heldFor === null && active.held) {
      active.held = false;
      active.writer.release(t);
    }
  }

  private async stop(desktopId: string, active: Active): Promise<void> {
    this.active.delete(desktopId);
    await this.finishLive(active);
    this.options.logger.info({ desktopId, recording: active.id }, 'recording ended');
  }

  /** finish(), with the recording live to the API until it is done. */
  private async finishLive(active: Active): Promise<void> {
    this.finishing.add(active.id);
    try {
      await this.finish(active);
    } finally {
      this.finishing.delete(active.id);
    }
  }

  private async finish(active: Active): Promise<void> {
    const summary = active.recorder
      ? await active.recorder.stop()
      : await active.writer.close(Date.now());
    await this.options.store.recordings.update(active.id, {
      endedAt: Math.max(summary.end, active.since),
      bytes: summary.bytes,
      gaps: summary.gaps,
      storedBytes: await this.local.bytes(active.id),
    });
    this.mover?.move(active.id);
  }

  // ---- keeping them ---------------------------------------------------------------------

  /** A recording being written took more room: rotate it, or run retention, when due. */
  private written(desktopId: string, active: Active, bytes: number): void {
    this.grown += Math.max(0, bytes - active.bytes);
    active.bytes = bytes;
    const limits = this.limits;
    if (limits === undefined || this.closed) return;
    if (!active.rotating) {
      const due = rotationDue(
        { startedAt: active.since, bytes },
        limits,
        Date.now(),
        this.minPieceMs(),
      );
      if (due !== undefined) void this.rotate(desktopId, active, due);
    }
    if (this.grown >= growthStep(limits)) void this.enforceRetention();
  }

  private minPieceMs(): number {
    return this.options.retention?.minPieceMs ?? MIN_PIECE_MS;
  }

  /**
   * Ends the desktop's recording being written and starts a new one of the same connection (the
   * new one first, so nothing of the desktop is missed between them).
   */
  private rotate(desktopId: string, active: Active, reason: string): Promise<void> {
    if (active.rotating) return Promise.resolve();
    active.rotating = true;
    return this.enqueue(desktopId, async () => {
      // Live to the API all along: once the new one is in its place, until its files are done.
      this.finishing.add(active.id);
      try {
        if (this.active.get(desktopId) !== active || this.closed || !this.joins.has(desktopId))
          return;
        await this.start(desktopId, active);
        if (this.active.get(desktopId) === active) return;
        active.writer.event({
          kind: 'recording.rotated',
          reason,
          next: this.active.get(desktopId)?.id,
        });
        await this.finish(active);
        this.options.logger.info(
          { desktopId, recording: active.id, reason },
          'recording rotated: ended here and continued in a new one',
        );
      } finally {
        this.finishing.delete(active.id);
        active.rotating = false;
      }
      void this.enforceRetention();
    });
  }

  private async retentionPass(): Promise<RetentionOutcome> {
    const { store, logger } = this.options;
    const limits = await this.retentionLimits();
    const now = Date.now();
    const live = new Map(
      [...this.active.entries()].map(([desktopId, a]) => [a.id, { desktopId, a }]),
    );
    // Recordings kept on an S3 store this bridge was started without are out of its reach:
    // neither deleted (their objects would be left behind) nor counted against the caps (local
    // ones would be deleted to make room for them).
    const rows = (await store.recordings.list()).filter((r) => !outOfReach(r, this.location));
    // Rows not measured yet (an older bridge's, or listed by hand): their files, counted once.
    for (const row of rows) {
      if (live.has(row.id) || row.location !== 'local' || row.storedBytes > 0) continue;
      if (row.endedAt === null) continue;
      row.storedBytes = await this.local.bytes(row.id);
      if (row.storedBytes > 0)
        await store.recordings.update(row.id, { storedBytes: row.storedBytes });
    }
    // Ended recordings still in the spool (left by a previous run, or a move that failed).
    for (const row of rows)
      if (row.location === 'local' && row.endedAt !== null && !this.liveIds().has(row.id))
        this.mover?.move(row.id);
    const plan = planRetention(
      rows.map((row) => {
        const writing = live.get(row.id);
        return {
          id: row.id,
          desktopId: row.desktopId,
          startedAt: row.startedAt,
          endedAt: writing === undefined ? row.endedAt : null,
          bytes: writing === undefined ? row.storedBytes : writing.a.bytes,
          live: writing !== undefined,
        };
      }),
      limits,
      now,
      this.minPieceMs(),
    );
    const outcome: RetentionOutcome = { removed: [], rotated: [], held: null };
    const byId = new Map(rows.map((r) => [r.id, r]));
    for (const { item, reason } of plan.remove) {
      const row = byId.get(item.id);
      if (row === undefined || !(await this.remove(row))) continue;
      outcome.removed.push({ id: row.id, desktopId: row.desktopId, bytes: item.bytes, reason });
      logger.info(
        { recording: row.id, desktopId: row.desktopId, bytes: item.bytes, reason },
        'recording deleted by retention',
      );
      const desktop = await store.desktops.byId(row.desktopId).catch(() => undefined);
      this.options.audit?.({
        kind: 'recording_deleted',
        actor: 'system',
        personId: null,
        personName: null,
        summary: `recording ${row.id} of desktop "${desktop?.name ?? row.desktopId}"`,
        outcome: 'ok',
        detail: `recording deleted by retention: ${reason} (${formatBytes(item.bytes)})`,
      });
    }
    for (const { desktopId, reason } of plan.rotate) {
      const active = this.active.get(desktopId);
      if (active === undefined || active.rotating) continue;
      outcome.rotated.push({ desktopId, reason });
      void this.rotate(desktopId, active, reason);
    }
    outcome.held = await this.watchFreeSpace(limits);
    return outcome;
  }

  /**
   * Holds every recording while the disk has less free than the limit keeps (and any that starts
   * meanwhile), and lets them write again once it has the limit and a tenth more.
   */
  private async watchFreeSpace(limits: RetentionLimits): Promise<string | null> {
    const space = limits.minFreeBytes > 0 ? await this.diskSpace() : undefined;
    if (space !== undefined && space.freeBytes < limits.minFreeBytes) {
      const reason = `the disk is nearly full (${formatBytes(space.freeBytes)} free; recordings keep ${formatBytes(limits.minFreeBytes)} free)`;
      if (this.heldFor === null)
        this.options.logger.warn(
          { free: space.freeBytes },
          'recordings held: the disk is nearly full',
        );
      this.heldFor = reason;
    } else if (
      this.heldFor !== null &&
      (space === undefined || space.freeBytes >= limits.minFreeBytes * 1.1)
    ) {
      this.heldFor = null;
      this.options.logger.info('recordings write again: the disk has room');
    }
    for (const active of this.active.values()) this.applyHold(active);
    return this.heldFor;
  }

  /** Files in the folder that no row lists (a start cut short before its row was written). */
  private async removeUnlisted(listed: ReadonlySet<string>): Promise<void> {
    const names = await readdir(this.options.dir).catch(() => [] as string[]);
    const orphans = new Set<string>();
    for (const name of names) {
      const id = RECORDING_FILE.exec(name)?.[1];
      if (id !== undefined && !listed.has(id) && !this.liveIds().has(id)) orphans.add(id);
    }
    for (const id of orphans) {
      await this.local.remove(id);
      this.options.logger.info({ recording: id }, 'removed the files of a recording never listed');
    }
  }

  private statusChanged(
    desktopId: string,
    active: Active,
    status: RecordingStatus,
    log: Logger,
  ): void {
    if (status.state === 'resumed') active.stoppedReason = null;
    else {
      active.stoppedReason = status.reason;
      // The writer has put `recording.stopped` on the event track itself, at the gap's start.
      log.warn({ recording: active.id, reason: status.reason }, 'recording stopped writing');
    }
    this.changed(desktopId);
  }

  private changed(desktopId: string): void {
    for (const listener of this.listeners) listener(desktopId);
  }
}

/** Whether the person in charge may switch the recording (the setting is theirs to choose). */
function mayPersonChange(decision: RecordingDecision | undefined): boolean {
  if (decision === undefined || decision.mode !== 'person') return false;
  return decision.personMayTurnOff || !decision.on;
}

async function statfsSpace(dir: string): Promise<DiskSpace> {
  const s = await statfs(dir);
  return { freeBytes: s.bavail * s.bsize, sizeBytes: s.blocks * s.bsize };
}

/** Growth of the recordings being written between two passes: 1/32 of the smallest cap. */
function growthStep(limits: RetentionLimits): number {
  const smallest = smallestCap(limits);
  const MiB = 1024 * 1024;
  return Number.isFinite(smallest)
    ? Math.min(64 * MiB, Math.max(256 * 1024, smallest / 32))
    : 64 * MiB;
}
