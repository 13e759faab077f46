// Moves finished recordings from the spool (the data dir's recordings folder, where every
// recording is written) to the S3 bucket: upload every file, then mark the row `s3` with the
// bytes stored, then remove the local copy — in that order, so a bridge killed at any step
// leaves the recording readable (its row still `local` with the files on disk; or `s3` with
// the objects in place) and the next run finishes the move. One move at a time (they share the
// uplink); a recording being deleted is taken out of the queue, or its move waited for, first.
// The row records the bucket and prefix it went to; a recording whose files are not in this
// spool is another bridge's (a site shares the store) and is not this one's to move. One whose
// row is deleted before or while it is moved (through another bridge of the site, which cannot
// reach this spool) is deleted here too: its files, and the objects just uploaded, which no row
// would list.
import type { Logger } from 'pino';
import type { Store } from '../../store/types.js';
import type { LocalFiles } from './localFiles.js';
import type { S3Files } from './s3Files.js';

interface Move {
  done: Promise<void>;
  started: boolean;
  cancelled: boolean;
}

export class SpoolMover {
  private readonly moves = new Map<string, Move>();
  private chain: Promise<void> = Promise.resolve();
  private closed = false;

  constructor(
    private readonly s3: S3Files,
    private readonly local: LocalFiles,
    private readonly store: Store,
    private readonly logger: Logger,
  ) {}

  /** Queues the move of a finished recording (its row closed); once per recording at a time. */
  move(id: string): void {
    if (this.closed || this.moves.has(id)) return;
    const move: Move = { done: Promise.resolve(), started: false, cancelled: false };
    move.done = this.chain.then(async () => {
      if (move.cancelled || this.closed) return;
      move.started = true;
      await this.moveNow(id).catch((err: unknown) =>
        this.logger.warn(
          { err, recording: id },
          'a recording could not be moved to the S3 store; it stays in the data dir and is tried again later',
        ),
      );
    });
    this.moves.set(id, move);
    this.chain = move.done;
    void move.done.then(() => {
      if (this.moves.get(id) === move) this.moves.delete(id);
    });
  }

  /** Takes the recording out of the queue, or waits for its move under way to end. */
  async cancel(id: string): Promise<void> {
    const move = this.moves.get(id);
    if (move === undefined) return;
    if (move.started) {
      await move.done;
      return;
    }
    // Not begun: it will not (and the moves queued before it are not waited for).
    move.cancelled = true;
    this.moves.delete(id);
  }

  /** Whether a move of the recording is queued or under way. */
  pending(id: string): boolean {
    return this.moves.has(id);
  }

  /** Every move queued so far, done (tests). */
  async settled(): Promise<void> {
    while (this.moves.size > 0) await Promise.all([...this.moves.values()].map((m) => m.done));
  }

  /** Starts no more moves and waits for the one under way (the next run does the rest). */
  async close(): Promise<void> {
    this.closed = true;
    await this.chain;
  }

  private async moveNow(id: string): Promise<void> {
    const row = await this.store.recordings.byId(id);
    // Queued once its row was closed: no row now means it was deleted meanwhile.
    if (row === undefined) {
      await this.local.remove(id);
      return;
    }
    if (row.endedAt === null) return;
    if (row.location === 's3') {
      // Moved before, and the bridge stopped before the local copy was removed.
      await this.local.remove(id);
      return;
    }
    // Not in this spool: another bridge of the site (sharing the store) wrote it and moves it.
    if (!(await this.local.has(id))) return;
    const storedBytes = await this.s3.upload(this.local.dir, id);
    // Where it now lives, on its row: a later --recordings-s3 elsewhere still finds it.
    const { bucket, prefix } = this.s3.target;
    await this.store.recordings.update(id, {
      location: 's3',
      storedBytes,
      s3Bucket: bucket,
      s3Prefix: prefix,
    });
    if ((await this.store.recordings.byId(id)) === undefined) {
      await this.s3.remove(id);
      await this.local.remove(id);
      this.logger.info({ recording: id }, 'recording deleted while it was moved to the S3 store');
      return;
    }
    await this.local.remove(id);
    this.logger.info({ recording: id, bytes: storedBytes }, 'recording moved to the S3 store');
  }
}
