// Keeping the recordings (retention.ts has the rules, this runs them): at start, every minute and
// whenever the recordings being written have grown by another step, the recordings past the
// admin's limits (age, total size, size per desktop) are deleted, oldest first and audited; a
// recording being written is never deleted but rotated (recordings.ts ends it and starts the
// next piece). Below the free space to keep, every recording being written is held (a gap, and
// the windows say why) until there is room again — including one that takes its place while the
// hold is decided. At start, the rows a previous run left open are closed and files no row lists
// removed; at start and at each pass, the multipart uploads a killed bridge left in the S3 store
// are aborted. Where the files are kept (the data dir, an S3 store) is storage/keptFiles.ts's.
//
// On a site (bridges sharing the store, each with a data dir of its own) every bridge plans over
// every row, so the caps are the site's, and deletes only what it can delete completely: the
// recordings in its own data dir and those on the S3 store. Another bridge's local recording is
// left to that bridge, which runs the same plan — deleting its row here would leave its files
// there, unlisted. Files in this data dir whose row is gone (deleted through another bridge's
// API, which cannot reach them) are removed at the next pass.
import { readdir, stat, statfs } from 'node:fs/promises';
import type { Logger } from 'pino';
import {
  RecordingReader,
  recordingPaths,
  type RecordingWriter,
} from '@overlay-companion/recording';
import type { AuditInput } from '../audit/auditLog.js';
import type { RecordingRecord, Store } from '../store/types.js';
import type { RecordingPolicy } from './recordingPolicy.js';
import type { KeptFiles } from './storage/keptFiles.js';
import { recordingIdOf } from './storage/recordingFiles.js';
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

/** A recording being written, as keeping sees it. */
export interface WrittenRecording {
  readonly id: string;
  readonly since: number;
  readonly writer: Pick<RecordingWriter, 'hold' | 'release'>;
  /** Bytes its files take, as the writer last said. */
  bytes: number;
  /** A rotation of it is queued or under way. */
  rotating: boolean;
  /** Held for lack of free space (writer.hold). */
  held: boolean;
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
/** Files no row lists are removed by a pass only once unchanged this long (see removeUnlisted). */
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
  /** Why recordings are held for lack of free space (null: they are not). */
  private heldFor: string | null = null;

  constructor(
    private readonly options: KeepingOptions,
    private readonly writing: BeingWritten,
  ) {}

  /** Why recordings are not writing for lack of free space now (null: they may write). */
  heldReason(): string | null {
    return this.heldFor;
  }

  /**
   * Closes the rows a previous run left open (the bridge stopped without finishing them): their
   * end, size and gaps as the files say; removes files no row lists (a recording whose start
   * was cut short); then runs retention once (which also measures the rows of an older bridge
   * that did not count every file) and every minute from now on.
   */
  async recover(): Promise<void> {
    const { store, dir, kept } = this.options;
    const rows = await store.recordings.list();
    await kept.placeOlderRows(rows);
    for (const row of rows) {
      if (this.writing.liveIds().has(row.id) || row.location !== 'local' || row.endedAt !== null)
        continue;
      // Its files are not here: another bridge of the site (sharing the store, with a data dir
      // of its own) is writing it, and closes it itself; or they are gone, and nothing can say
      // where it ended.
      if (!(await kept.local.has(row.id))) continue;
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
        storedBytes: await kept.local.bytes(row.id),
      });
    }
    await this.removeUnlisted(new Set(rows.map((r) => r.id)));
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
          return { removed: [], rotated: [], held: this.heldFor };
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
  async diskSpace(): Promise<DiskSpace | undefined> {
    const read = this.options.diskSpace ?? statfsSpace;
    return read(this.options.dir).catch(() => undefined);
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
   * Holds or releases one recording being written to match the disk's free space now. Called for
   * every one by each pass, and by recordings.ts for one as it becomes the desktop's (`t`: its
   * start, so its gap covers it from its first moment).
   */
  applyHold(active: WrittenRecording, t?: number): void {
    if (this.heldFor !== null && !active.held) {
      active.held = true;
      active.writer.hold(this.heldFor, t);
    } else if (this.heldFor === null && active.held) {
      active.held = false;
      active.writer.release(t);
    }
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
    outcome.held = await this.watchFreeSpace(limits);
    await this.removeUnlisted(new Set(listed.map((r) => r.id)), UNLISTED_MIN_AGE_MS);
    // After the moves are queued: an upload of one of them is this bridge's own, left alone.
    await kept.sweepUploads();
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
    for (const active of this.writing.active().values()) this.applyHold(active);
    return this.heldFor;
  }

  /**
   * Files in the folder that no row lists: a start cut short before its row was written, or a
   * recording deleted through another bridge of the site (which could delete its row only).
   * One listed meanwhile (a recording that began and ended since `listed` was read) is kept, and
   * so is one whose files changed less than `minAgeMs` ago (a writer creates its files before its
   * row is written: a pass between the two must not take them for a deleted recording's).
   */
  private async removeUnlisted(listed: ReadonlySet<string>, minAgeMs = 0): Promise<void> {
    const names = await readdir(this.options.dir).catch(() => [] as string[]);
    const orphans = new Set<string>();
    for (const name of names) {
      const id = recordingIdOf(name);
      if (id !== undefined && !listed.has(id) && !this.writing.liveIds().has(id)) orphans.add(id);
    }
    for (const id of orphans) {
      if (this.writing.liveIds().has(id)) continue;
      if (minAgeMs > 0 && Date.now() - (await lastChange(this.options.dir, id)) < minAgeMs)
        continue;
      if ((await this.options.store.recordings.byId(id)) !== undefined) continue;
      await this.options.kept.local.remove(id);
      this.options.logger.info({ recording: id }, 'removed the files of a recording never listed');
    }
  }
}

/** When any file of the recording last changed (ms; 0 when none is there). */
async function lastChange(dir: string, id: string): Promise<number> {
  const times = await Promise.all(
    Object.values(recordingPaths(dir, id)).map((p) =>
      stat(p).then(
        (s) => s.mtimeMs,
        () => 0,
      ),
    ),
  );
  return Math.max(0, ...times);
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
