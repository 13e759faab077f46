// Where the bridge's recordings are kept, as one place for the rest of the bridge: the data
// dir's recordings folder (localFiles.ts), which is only the spool when an S3 store is
// configured (s3Files.ts; finished recordings are moved there by spoolMover.ts). It answers
// which RecordingFiles reads a recording (its row says where it is), queues moves, and deletes
// every copy of a recording. Whether a recording may be deleted (not while it is being written)
// is the caller's to decide.
import type { Logger } from 'pino';
import type { RecordingRecord, Store } from '../../store/types.js';
import { LocalFiles } from './localFiles.js';
import { MovingFiles } from './movingFiles.js';
import type { RecordingFiles } from './recordingFiles.js';
import { S3NotConfigured } from './s3NotConfigured.js';
import type { S3Files } from './s3Files.js';
import { SpoolMover } from './spoolMover.js';

export class KeptFiles {
  readonly local: LocalFiles;
  /** Moves ended recordings to the S3 store, when there is one. */
  private readonly mover: SpoolMover | undefined;
  private moving: MovingFiles | undefined;
  private noS3: S3NotConfigured | undefined;

  constructor(
    dir: string,
    private readonly store: Store,
    logger: Logger,
    private readonly s3: S3Files | undefined,
  ) {
    this.local = new LocalFiles(dir);
    this.mover = s3 === undefined ? undefined : new SpoolMover(s3, this.local, store, logger);
  }

  /** Where finished recordings are kept: the data dir ('local'), or an S3 bucket ('s3'). */
  get location(): 'local' | 's3' {
    return this.s3 === undefined ? 'local' : 's3';
  }

  /** Where the recording's files are read from (its row says where they are). */
  files(recording: Pick<RecordingRecord, 'location'>): RecordingFiles {
    const { s3 } = this;
    if (s3 === undefined)
      return recording.location === 's3' ? (this.noS3 ??= new S3NotConfigured()) : this.local;
    // A local one may be moved while it is read: the bucket has it once the local copy is gone.
    return recording.location === 's3' ? s3 : (this.moving ??= new MovingFiles(this.local, s3));
  }

  /** Queues the move of a finished recording to the S3 store (none: it stays here). */
  move(id: string): void {
    this.mover?.move(id);
  }

  /** Every move to the S3 store queued so far, done (tests). */
  async moved(): Promise<void> {
    await this.mover?.settled();
  }

  /** Deletes every copy of a finished recording (the bucket's too) and its row. */
  async remove(recording: RecordingRecord): Promise<void> {
    // Not while it is being moved: its objects would be put back after they were deleted.
    await this.mover?.cancel(recording.id);
    const current = await this.store.recordings.byId(recording.id);
    // Every copy where it may be (the bucket's too); refused when this bridge cannot reach it.
    await this.files(current ?? recording).remove(recording.id);
    await this.local.remove(recording.id);
    await this.store.recordings.remove(recording.id);
  }

  /** Waits for the move under way and closes the S3 client (the bridge is closing). */
  async close(): Promise<void> {
    await this.mover?.close();
    this.s3?.close();
  }
}
