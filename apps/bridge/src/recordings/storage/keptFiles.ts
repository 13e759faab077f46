// Where the bridge's recordings are kept, as one place for the rest of the bridge: the data
// dir's recordings folder (localFiles.ts), which is only the spool when an S3 store is
// configured (s3Files.ts; finished recordings are moved there by spoolMover.ts, which records
// the bucket and prefix on the row). It answers which RecordingFiles reads a recording — from
// the place its row names, the bucket's other prefixes included — and why one is out of reach
// (unreachable.ts); queues moves; deletes every copy of a recording; and aborts the multipart
// uploads a killed bridge left (abandonedUploads.ts). Whether a recording may be deleted (not
// while it is being written; one out of reach by an admin only) is the caller's to decide.
import type { Logger } from 'pino';
import type { RecordingRecord, Store } from '../../store/types.js';
import { abortAbandonedUploads } from './abandonedUploads.js';
import { LocalFiles } from './localFiles.js';
import { MovingFiles } from './movingFiles.js';
import type { RecordingFiles } from './recordingFiles.js';
import type { S3Files } from './s3Files.js';
import { SpoolMover } from './spoolMover.js';
import { Unreachable, unreachableReason, type Place } from './unreachable.js';

export class KeptFiles {
  readonly local: LocalFiles;
  /** Moves ended recordings to the S3 store, when there is one. */
  private readonly mover: SpoolMover | undefined;
  private moving: MovingFiles | undefined;
  /** Rows an older bridge moved without a bucket, whose objects are not under ours (at start). */
  private readonly notFound = new Set<string>();
  private sweeping: Promise<unknown> | undefined;
  /** The sweep's listing failed before (a store or policy without it): said once, not each pass. */
  private sweepFailed = false;

  constructor(
    dir: string,
    private readonly store: Store,
    private readonly logger: Logger,
    private readonly s3: S3Files | undefined,
  ) {
    this.local = new LocalFiles(dir);
    this.mover = s3 === undefined ? undefined : new SpoolMover(s3, this.local, store, logger);
  }

  /** Where finished recordings are kept: the data dir ('local'), or an S3 bucket ('s3'). */
  get location(): 'local' | 's3' {
    return this.s3 === undefined ? 'local' : 's3';
  }

  /** Why this bridge cannot reach the recording's files (undefined: it can). */
  unreachable(row: Place & { id?: string }): string | undefined {
    const notFound = row.id !== undefined && this.notFound.has(row.id);
    return unreachableReason(row, this.s3?.target, notFound);
  }

  /** Where the recording's files are read from (its row says where they are). */
  files(row: Place & { id?: string }): RecordingFiles {
    const reason = this.unreachable(row);
    if (reason !== undefined) return new Unreachable(reason);
    const { s3 } = this;
    if (s3 === undefined) return this.local;
    // A local one may be moved while it is read: the bucket has it once the local copy is gone.
    if (row.location !== 's3') return (this.moving ??= new MovingFiles(this.local, s3));
    // Under the prefix it was moved to (an older bridge's row names none: ours, as it was then).
    return s3.at(row.s3Prefix ?? s3.target.prefix);
  }

  /**
   * At start, with an S3 store: rows an older bridge moved without recording bucket and prefix
   * get ours when their objects are under ours (where that bridge, configured as this one, put
   * them); the others are out of reach, saying so.
   */
  async placeOlderRows(rows: readonly RecordingRecord[]): Promise<void> {
    const { s3 } = this;
    if (s3 === undefined) return;
    for (const row of rows) {
      if (row.location !== 's3' || row.s3Bucket !== null) continue;
      const found = await s3.has(row.id).catch((err: unknown) => {
        this.logger.warn(
          { err, recording: row.id },
          'could not look for a recording in the S3 store',
        );
        return undefined;
      });
      if (found === true) {
        const place = { s3Bucket: s3.target.bucket, s3Prefix: s3.target.prefix };
        await this.store.recordings.update(row.id, place);
        Object.assign(row, place);
      } else if (found === false) this.notFound.add(row.id);
    }
    if (this.notFound.size > 0)
      this.logger.warn(
        { recordings: this.notFound.size },
        'recordings an older bridge moved to an S3 store are not under this bridge’s bucket and prefix: they are listed as unavailable',
      );
  }

  /** Queues the move of a finished recording to the S3 store (none: it stays here). */
  move(id: string): void {
    this.mover?.move(id);
  }

  /** Every move to the S3 store queued so far, done (tests). */
  async moved(): Promise<void> {
    await this.mover?.settled();
  }

  /**
   * Deletes every copy of a finished recording (the bucket's too) and its row. One out of this
   * bridge's reach loses its row only: its objects stay where they are.
   */
  async remove(recording: RecordingRecord): Promise<void> {
    // Not while it is being moved: its objects would be put back after they were deleted.
    await this.mover?.cancel(recording.id);
    const current = (await this.store.recordings.byId(recording.id)) ?? recording;
    if (this.unreachable(current) === undefined) await this.files(current).remove(recording.id);
    await this.local.remove(recording.id);
    await this.store.recordings.remove(recording.id);
    this.notFound.delete(recording.id);
  }

  /** Aborts the multipart uploads a killed bridge left (one sweep at a time); never throws. */
  async sweepUploads(): Promise<void> {
    const { s3, mover } = this;
    if (s3 === undefined || mover === undefined) return;
    this.sweeping ??= abortAbandonedUploads({
      s3,
      store: this.store,
      logger: this.logger,
      moving: (id) => mover.pending(id),
    })
      .catch((err: unknown) => {
        // Each pass would say it again (every minute): once at warn, then at debug.
        const level = this.sweepFailed ? 'debug' : 'warn';
        this.sweepFailed = true;
        this.logger[level](
          { err },
          'multipart uploads left in the S3 store could not be listed (s3:ListBucketMultipartUploads); parts a killed bridge left stay until it can',
        );
      })
      .finally(() => {
        this.sweeping = undefined;
      });
    await this.sweeping;
  }

  /** Waits for the move under way and closes the S3 client (the bridge is closing). */
  async close(): Promise<void> {
    await this.sweeping;
    await this.mover?.close();
    this.s3?.close();
  }
}
