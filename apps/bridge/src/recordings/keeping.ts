// Keeping the recordings (retention.ts has the rules, this runs them): at start, every minute and
// whenever the recordings being written have grown by another step, the recordings past the
// admin's limits (age, total size, size per desktop) are deleted, oldest first and audited; a
// recording being written is never deleted but rotated (recordingLifecycle.ts ends it and starts the
// next piece). Below the free space to keep, every recording being written is held until there
// is room again (freeSpaceHold.ts). At start, the rows a previous run left open are closed and
// files no row lists removed (leftovers.ts); at start and at each pass, the multipart uploads a
// killed bridge left in the S3 store are aborted. Where the files are kept (the data dir, an S3
// store) is storage/keptFiles.ts's.
//
// On a site (bridges sharing the store, each with a data dir of its own) every bridge plans over
// every row, so the caps are the site's, and deletes only what it can delete completely: the
// recordings in its own data dir and those on the S3 store. Another bridge's local recording is
// left to that bridge, which runs the same plan — deleting its row here would leave its files
// there, unlisted. Files in this data dir whose row is gone (deleted through another bridge's
// API, which cannot reach them) are removed at the next pass.
import type { Logger } from 'pino';
import type { AuditInput } from '../audit/auditLog.js';
import type { RecordingRecord, Store } from '../store/types.js';
import { FreeSpaceHold, type DiskSpace, type HeldRecording } from './freeSpaceHold.js';
import { closeRowsLeftOpen, removeUnlistedFiles } from './leftovers.js';
import type { RecordingPolicy } from './recordingPolicy.js';
import type { KeptFiles } from './storage/keptFiles.js';
import {
  MIN_PIECE_MS,
  formatBytes,
  planRetention,
  rotationDue,
  smallestCap,
  type RetentionLimits,
} from './retention.js';

export interface RetentionTiming {
  /** How often retention runs besides at start and as recordings grow (default 60 s). */
  intervalMs?: number | undefined;
  /** How young a recording may be rotated for its size (default MIN_PIECE_MS, 5 s). */
  minPieceMs?: number | undefined;
}

/** What one retention pass did. */
export interface RetentionOutcome {
  removed: { id: string; desktopId: string; bytes: number; reason: string }[];
  rotated: { desktopId: string; reason: string }[];
  /** Why recordings are held (the disk is nearly full); null when they may write. */
  held: string | null;
}

/** A recording being written, as keeping sees it. */
export interface WrittenRecording extends HeldRecording {
  readonly id: string;
  readonly since: number;
  /** Bytes its files take, as the writer last said. */
  bytes: number;
  /** A rotation of it is queued or under way. */
  rotating: boolean;
}

/** The recordings being written, which keeping measures, holds and has rotated. */
export interface BeingWritten {
  /** The recording being written, per desktop. */
  active(): ReadonlyMap<string, WrittenRecording>;
  /** Ids of the recordings being made now (or being finished). */
  liveIds(): ReadonlySet<string>;
  /** Ends the desktop's recording and continues in a new one (once; not while one is under way). */
  rotate(desktopId: string, active: WrittenRecording, reason: string): void;
  /** Whether the bridge is closing: nothing more is rotated. */
  isClosed(): boolean;
}

export interface KeepingOptions {
  store: Store;
  dir: string;
  logger: Logger;
  policy: RecordingPolicy;
  kept: KeptFiles;
  audit?: ((entry: AuditInput) => void) | undefined;
  retention?: RetentionTiming | undefined;
  diskSpace?: ((dir: string) => Promise<DiskSpace>) | undefined;
}

const RETENTION_INTERVAL_MS = 60_000;
/** Files no row lists are removed by a pass only once unchanged this long (removeUnlistedFiles). */
const UNLISTED_MIN_AGE_MS = 60_000;

export class Keeping {
  /** The limits last read, the pass under way and whether another is wanted. */
  private limits: RetentionLimits | undefined;
  private pass: Promise<RetentionOutcome> | undefined;
  private passAgain = false;
  private timer: NodeJS.Timeout | undefined;
  private stopped = false;
  /** Bytes the recordings being written have grown by since the last pass. */
  private grown = 0;
  private readonly hold: FreeSpaceHold;

  constructor(
    private readonly options: KeepingOptions,
    private readonly writing: BeingWritten,
  ) {
    this.hold = new FreeSpaceHold(options.dir, options.logger, options.diskSpace);
  }

  /** Why recordings are not writing for lack of free space now (null: they may write). */
  heldReason(): string | null {
    return this.hold.reason;
  }

  /**
   * Closes the rows a previous run left open (the bridge stopped without finishing them): their
   * end, size and gaps as the files say; removes files no row lists (a recording whose start
   * was cut short); then runs retention once (which also measures the rows of an older bridge
   * that did not count every file) and every minute from now on.
   */
  async recover(): Promise<void> {
    const { store, kept } = this.options;
    const rows = await store.recordings.list();
    await kept.placeOlderRows(rows);
    await closeRowsLeftOpen(this.options, rows, this.isLive);
    await removeUnlistedFiles(this.options, new Set(rows.map((r) => r.id)), this.isLive);
    const unreachable = rows.filter((r) => kept.unreachable(r) !== undefined).length;
    if (unreachable > 0)
      this.options.logger.warn(
        { recordings: unreachable },
        'recordings kept on an S3 store cannot be played, exported or deleted (nor aged out by retention): start the bridge with the same --recordings-s3 (or OC_RECORDINGS_S3_URL) it had when they were moved there',
      );
    // With an S3 store, what a previous run left in the spool goes there now (retention moves
    // what is still left at each pass); an `s3` row's local leftovers (a move cut short after
    // its row was marked) are removed by the same move.
    for (const row of rows)
      if (row.location === 's3' && (await kept.local.bytes(row.id)) > 0) kept.move(row.id);
    // Multipart uploads a killed run left, before this run's moves begin.
    await kept.sweepUploads();
    await this.enforceRetention();
    if (this.stopped) return;
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
          return { removed: [], rotated: [], held: this.hold.reason };
        });
      } while (this.passAgain && !this.writing.isClosed());
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
    this.limits = await this.options.policy.retention();
    return this.limits;
  }

  /** Free and total bytes of the recordings' disk (undefined when it cannot be read). */
  diskSpace(): Promise<DiskSpace | undefined> {
    return this.hold.diskSpace();
  }

  /**
   * Deletes a finished recording's files and its row. Returns false (and deletes nothing) while
   * it is being written. Auditing is the caller's.
   */
  async remove(recording: RecordingRecord): Promise<boolean> {
    if (this.writing.liveIds().has(recording.id)) return false;
    await this.options.kept.remove(recording);
    return true;
  }

  /**
   * Holds or releases one recording being written to match the disk's free space now; called
   * by recordingLifecycle.ts for one as it becomes the desktop's (`t`: its start, so its gap covers it
   * from its first moment).
   */
  applyHold(active: WrittenRecording, t?: number): void {
    this.hold.apply(active, t);
  }

  /** A recording being written took more room: rotate it, or run retention, when due. */
  written(desktopId: string, active: WrittenRecording, bytes: number): void {
    this.grown += Math.max(0, bytes - active.bytes);
    active.bytes = bytes;
    const limits = this.limits;
    if (limits === undefined || this.writing.isClosed()) return;
    if (!active.rotating) {
      const due = rotationDue(
        { startedAt: active.since, bytes },
        limits,
        Date.now(),
        this.minPieceMs(),
      );
      if (due !== undefined) this.writing.rotate(desktopId, active, due);
    }
    if (this.grown >= growthStep(limits)) void this.enforceRetention();
  }

  /** No more passes from the timer; waits for the one under way. */
  async close(): Promise<void> {
    this.stopped = true;
    if (this.timer !== undefined) clearInterval(this.timer);
    this.timer = undefined;
    await this.pass?.catch(() => undefined);
  }

  /** Whether the recording is being made now (or being finished): never a leftover. */
  private readonly isLive = (id: string): boolean => this.writing.liveIds().has(id);

  private minPieceMs(): number {
    return this.options.retention?.minPieceMs ?? MIN_PIECE_MS;
  }

  private async retentionPass(): Promise<RetentionOutcome> {
    const { store, logger, kept } = this.options;
    const limits = await this.retentionLimits();
    const now = Date.now();
    const live = new Map(
      [...this.writing.active().entries()].map(([desktopId, a]) => [a.id, { desktopId, a }]),
    );
    // Recordings kept on an S3 store this bridge was started without are out of its reach:
    // neither deleted (their objects would be left behind) nor counted against the caps (local
    // ones would be deleted to make room for them).
    const listed = await store.recordings.list();
    const rows = listed.filter((r) => kept.unreachable(r) === undefined);
    // Rows not measured yet (an older bridge's, or listed by hand): their files, counted once.
    for (const row of rows) {
      if (live.has(row.id) || row.location !== 'local' || row.storedBytes > 0) continue;
      if (row.endedAt === null) continue;
      row.storedBytes = await kept.local.bytes(row.id);
      if (row.storedBytes > 0)
        await store.recordings.update(row.id, { storedBytes: row.storedBytes });
    }
    // Ended recordings still in the spool (left by a previous run, or a move that failed).
    for (const row of rows)
      if (row.location === 'local' && row.endedAt !== null && !this.writing.liveIds().has(row.id))
        kept.move(row.id);
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
      if (row === undefined) continue;
      // Another bridge's (its files are in its data dir): that bridge deletes it, files and row.
      if (row.location === 'local' && !(await kept.local.has(row.id))) continue;
      if (!(await this.remove(row))) continue;
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
      const active = this.writing.active().get(desktopId);
      if (active === undefined || active.rotating) continue;
      outcome.rotated.push({ desktopId, reason });
      this.writing.rotate(desktopId, active, reason);
    }
    outcome.held = await this.hold.check(limits, this.writing.active().values());
    await removeUnlistedFiles(
      this.options,
      new Set(listed.map((r) => r.id)),
      this.isLive,
      UNLISTED_MIN_AGE_MS,
    );
    // After the moves are queued: an upload of one of them is this bridge's own, left alone.
    await kept.sweepUploads();
    return outcome;
  }
}

/** Growth of the recordings being written between two passes: 1/32 of the smallest cap. */
function growthStep(limits: RetentionLimits): number {
  const smallest = smallestCap(limits);
  const MiB = 1024 * 1024;
  return Number.isFinite(smallest)
    ? Math.min(64 * MiB, Math.max(256 * 1024, smallest / 32))
    : 64 * MiB;
}
