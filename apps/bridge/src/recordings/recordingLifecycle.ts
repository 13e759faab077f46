// The bridge's session recordings, their lifecycle: which desktops are recorded
// (recordingPolicy.ts), a recorder on each open desktop connection while its recording is on
// (recorder.ts: the bridge joins the connection as its own Guacamole user), the desktop's privacy
// masks handed to the writer whenever they change, the event track fed from what the bridge
// audits, one row per recording in the store, and what each window's desktop_state says about
// it. A recording starts when a desktop's connection opens (or its recording is turned on while
// open) and ends with the connection (or when it is turned off); a rotation ends it and goes on
// in a new one (the new one first, so nothing of the desktop is missed between them). The files
// are in `<dataDir>/recordings` (0700), named by a random id only.
//
// Keeping them (retention, rotation for size, holding for the disk's free space) is keeping.ts's;
// where they are kept (the data dir, or an S3 store they are moved to once ended) and how they
// are read is storage/keptFiles.ts's. This class is the one the rest of the bridge holds.
import { mkdir } from 'node:fs/promises';
import type { Logger } from 'pino';
import type { DesktopStateMessage } from '@overlay-companion/protocol';
import {
  RecordingWriter,
  type Rect,
  type RecordingEventInput,
  type RecordingStatus,
  type RecordingWriterOptions,
} from '@overlay-companion/recording';
import type { AuditInput } from '../audit/auditLog.js';
import type { RecordingRecord, Store } from '../store/types.js';
import type { ConnectionJoin, ConnectionObserver } from '../tunnel/desktopConnections.js';
import type { DiskSpace } from './freeSpaceHold.js';
import {
  Keeping,
  type RetentionOutcome,
  type RetentionTiming,
  type WrittenRecording,
} from './keeping.js';
import { DesktopWorkQueue } from './desktopWorkQueue.js';
import { OverlayTrack } from './overlayTrack.js';
import { ConnectionRecorder } from './recorder.js';
import { mayPersonChange, RecordingPolicy } from './recordingPolicy.js';
import type { RetentionLimits } from './retention.js';
import { SavedMasks } from './savedMasks.js';
import { KeptFiles } from './storage/keptFiles.js';
import type { RecordingFiles } from './storage/recordingFiles.js';
import type { S3Files } from './storage/s3Files.js';
import type { Place } from './storage/unreachable.js';

export type { DiskSpace } from './freeSpaceHold.js';
export type { RetentionOutcome, RetentionTiming } from './keeping.js';

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
  /**
   * The folder of video export slots (exportSlotFiles.ts); absent: the machine's, shared by every
   * bridge on it. Tests give a bridge one of its own, or several bridges one to share.
   */
  exportSlots?: string | undefined;
}

interface Active extends WrittenRecording {
  writer: RecordingWriter;
  recorder: ConnectionRecorder | undefined;
  /** Why writing stopped (disk full, fell behind), while it is stopped. */
  stoppedReason: string | null;
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
  /**
   * Recordings whose files exist but whose row is not written yet: live to keeping, which would
   * otherwise take their files for those of a recording deleted through another bridge.
   */
  private readonly starting = new Set<string>();
  /** Per desktop, the work in flight (start, stop, rotation), so they happen one after the other. */
  private readonly queue: DesktopWorkQueue;
  private readonly listeners = new Set<(desktopId: string) => void>();
  /** Each desktop's overlays as its windows show them (a recording starts with these drawn). */
  private readonly overlays = new OverlayTrack();
  /** Masks saved per desktop, so one saved while a recording starts holds. */
  private readonly masks = new SavedMasks();
  private closed = false;
  private readonly kept: KeptFiles;
  private readonly keeping: Keeping;

  constructor(private readonly options: RecordingsOptions) {
    this.policy = new RecordingPolicy(options.store, options.recordByDefault === true);
    this.queue = new DesktopWorkQueue((err, desktopId) =>
      options.logger.warn({ err, desktopId }, 'recording could not be started or stopped'),
    );
    this.kept = new KeptFiles(options.dir, options.store, options.logger, options.s3);
    // What keeping sees of the recordings being written (and may have rotated).
    this.keeping = new Keeping(
      {
        store: options.store,
        dir: options.dir,
        logger: options.logger,
        policy: this.policy,
        kept: this.kept,
        audit: options.audit,
        retention: options.retention,
        diskSpace: options.diskSpace,
      },
      {
        active: () => this.active,
        liveIds: () => this.liveIds(),
        rotate: (desktopId, active, reason) =>
          void this.rotate(desktopId, active as Active, reason),
        isClosed: () => this.closed,
      },
    );
  }

  get dir(): string {
    return this.options.dir;
  }

  /** The folder of video export slots this bridge takes from (undefined: the machine's). */
  get exportSlotsDir(): string | undefined {
    return this.options.exportSlots;
  }

  /** Where finished recordings are kept: the data dir ('local'), or an S3 bucket ('s3'). */
  get location(): 'local' | 's3' {
    return this.kept.location;
  }

  /** Where the recording's files are read from (its row says where they are). */
  files(recording: Place & { id?: string }): RecordingFiles {
    return this.kept.files(recording);
  }

  /** Why this bridge cannot reach the recording's files (undefined: it can). */
  unreachable(recording: Place & { id?: string }): string | undefined {
    return this.kept.unreachable(recording);
  }

  /** Every move to the S3 store queued so far, done (tests). */
  async moved(): Promise<void> {
    await this.kept.moved();
  }

  /** Why recordings are not writing for lack of free space now (null: they may write). */
  heldReason(): string | null {
    return this.keeping.heldReason();
  }

  /**
   * Closes the rows a previous run left open, removes files no row lists, then runs retention
   * once and every minute from now on (keeping.ts). Call once at start, before any connection
   * opens.
   */
  async recover(): Promise<void> {
    await mkdir(this.options.dir, { recursive: true, mode: 0o700 });
    await this.keeping.recover();
  }

  /**
   * Runs retention now (or once more after the pass under way): deletes what is past the limits,
   * rotates what is being written where it must, and holds or releases the recordings for the
   * disk's free space. Resolves with what the pass did.
   */
  enforceRetention(): Promise<RetentionOutcome> {
    return this.keeping.enforceRetention();
  }

  /** The limits in force (read at each pass; the settings API changes them). */
  retentionLimits(): Promise<RetentionLimits> {
    return this.keeping.retentionLimits();
  }

  /** Bytes each recording being written takes now, by id. */
  liveBytes(): ReadonlyMap<string, number> {
    return new Map([...this.active.values()].map((a) => [a.id, a.bytes]));
  }

  /** Free and total bytes of the recordings' disk (undefined when it cannot be read). */
  diskSpace(): Promise<DiskSpace | undefined> {
    return this.keeping.diskSpace();
  }

  /**
   * Deletes a finished recording's files and its row. Returns false (and deletes nothing) while
   * it is being written. Auditing is the caller's.
   */
  remove(recording: RecordingRecord): Promise<boolean> {
    return this.keeping.remove(recording);
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
    return this.queue.run(desktopId, () => this.apply(desktopId));
  }

  /** Settles every start and stop asked for so far (tests). */
  settled(): Promise<void> {
    return this.queue.settled();
  }

  /** The privacy masks of a desktop changed (its owner saved a layout). */
  setMasks(desktopId: string, rects: readonly Rect[]): void {
    this.masks.saved(desktopId, rects);
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
  overlaysChanged(desktopId: string, change: Parameters<OverlayTrack['changed']>[1]): void {
    for (const event of this.overlays.changed(desktopId, change)) this.event(desktopId, event);
  }

  /** Ids of the recordings being made now (or being finished). */
  liveIds(): ReadonlySet<string> {
    return new Set([
      ...[...this.active.values()].map((a) => a.id),
      ...this.finishing,
      ...this.starting,
    ]);
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
    const keeping = this.keeping.close();
    this.joins.clear();
    for (const desktopId of [...this.active.keys()]) void this.reconsider(desktopId);
    await this.settled();
    await keeping;
    await this.kept.close();
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
    const maskSavesBefore = this.masks.count(desktopId);
    const made: { active?: Active } = {};
    const writer = await RecordingWriter.create({
      ...this.options.writer,
      dir: this.options.dir,
      onStatus: (status) => {
        if (made.active !== undefined) this.statusChanged(desktopId, made.active, status, log);
      },
      onWritten: (bytes) => {
        if (made.active !== undefined) this.keeping.written(desktopId, made.active, bytes);
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
    this.starting.add(writer.id);
    try {
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
    } finally {
      this.starting.delete(writer.id);
    }
    // A layout saved while this was starting found no recording to tell: its masks win over
    // the ones read above (still before the writer has seen anything of the desktop).
    if (this.masks.count(desktopId) !== maskSavesBefore)
      writer.setMasks(this.masks.latestOf(desktopId));
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
    this.keeping.applyHold(active, since);
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
      storedBytes: await this.kept.local.bytes(active.id),
    });
    this.kept.move(active.id);
  }

  /**
   * Ends the desktop's recording being written and starts a new one of the same connection (the
   * new one first, so nothing of the desktop is missed between them).
   */
  private rotate(desktopId: string, active: Active, reason: string): Promise<void> {
    if (active.rotating) return Promise.resolve();
    active.rotating = true;
    return this.queue.run(desktopId, async () => {
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
      void this.keeping.enforceRetention();
    });
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
