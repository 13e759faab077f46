// When the writer drops frames and when it may write again: the gap open now (the disk failed or
// could not keep up, the owner held the recording), retrying a failed disk every `retryAfterMs`
// in the background, and the resume — the writer writes a full keyframe into the recording, and
// the gap closes, and the resume is reported, once that keyframe is on disk (a disk that takes
// the reopening but not the data, still full, must not make the status flap). How a gap is told
// (index, event track, onStatus): gapLog.ts.
import type { BoundedFile } from './boundedFile.js';
import type { Gap, GapLog } from './gapLog.js';

export class WriterGaps {
  /** The gap open now, if any. */
  open: Gap | undefined;
  /** A gap whose resume keyframe is written but not yet confirmed on disk. */
  private resuming: { gap: Gap; to: number } | undefined;
  private retrying = false;
  private lastRetry = 0;

  constructor(
    private readonly file: BoundedFile,
    private readonly log: GapLog,
    private readonly retryAfterMs: number,
  ) {}

  /** Whether a resume keyframe waits for the disk. */
  get resumingNow(): boolean {
    return this.resuming !== undefined;
  }

  /** Frames are dropped from `t` on, for `reason`; false when a gap was already open. */
  start(t: number, reason: string): boolean {
    if (this.open !== undefined) return false;
    const resuming = this.resuming;
    this.resuming = undefined;
    if (resuming) {
      // The resume keyframe never reached the disk: the same gap goes on (no second report).
      this.open = resuming.gap;
      return true;
    }
    this.open = { from: t, reason };
    this.log.opened(this.open);
    return true;
  }

  /** The recording ends at `to` inside the gap. */
  end(to: number): void {
    const gap = this.open;
    if (gap === undefined) return;
    this.open = undefined;
    this.log.close(gap, to);
  }

  /**
   * At a frame's end at `t`, in a gap: whether the disk takes data again, so the writer writes
   * its resume keyframe now (the gap is then no longer open, and closes once resumed() is called
   * back). A failed disk is retried in the background, at most every `retryAfterMs`.
   */
  mayResume(t: number): boolean {
    if (this.file.failure !== undefined) {
      if (this.retrying || t - this.lastRetry < this.retryAfterMs) return false;
      this.retrying = true;
      this.lastRetry = t;
      // In the background: the live stream never waits for the disk.
      this.file.resume().then(
        () => (this.retrying = false),
        () => (this.retrying = false),
      );
      return false;
    }
    const gap = this.open;
    if (gap === undefined || this.file.pendingBytes > this.file.maxPendingBytes / 2) return false;
    this.open = undefined;
    this.resuming = { gap, to: t };
    return true;
  }

  /** What to call once the frame being written is on disk, when it carries a resume keyframe. */
  onResumeWritten(): (() => void) | undefined {
    const resuming = this.resuming;
    if (resuming === undefined) return undefined;
    return () => {
      if (this.resuming !== resuming) return;
      this.resuming = undefined;
      this.log.resumed(resuming.gap, resuming.to);
    };
  }
}

/** An error as a gap's reason: its code (ENOSPC, EACCES, EIO…) and message. */
export function describe(error: unknown): string {
  if (error instanceof Error) {
    const code = (error as NodeJS.ErrnoException).code;
    return code ? `${code}: ${error.message}` : error.message;
  }
  return String(error);
}
