// How the writer tells of a gap in the recording (the disk failed or could not keep up, the
// bridge held the recording, the recorder broke off): the index's `gap` lines (open, then
// closed), the event track's `recording.stopped` and `gap` events, the owner's onStatus, and the
// gaps the summary lists. When a gap opens and closes is the writer's business.
import type { IndexEntry } from './indexFormat.js';
import type { JsonLinesFile } from './jsonLinesFile.js';
import type { RecordingStatus } from './writerOptions.js';

export interface Gap {
  from: number;
  reason: string;
}

export class GapLog {
  /** Every gap closed so far, in order. */
  readonly closed: { from: number; to: number; reason: string }[] = [];

  constructor(
    private readonly index: (entry: IndexEntry) => void,
    private readonly events: JsonLinesFile,
    private readonly onStatus: ((status: RecordingStatus) => void) | undefined,
  ) {}

  /** `gap` opened (at its `from`). */
  opened(gap: Gap): void {
    const { from: t, reason } = gap;
    this.index({ type: 'gap', from: t, to: null, reason });
    this.events.append({ t, kind: 'recording.stopped', reason });
    this.onStatus?.({ state: 'stopped', from: t, reason });
  }

  /** `gap` closed at `to` (its resume keyframe is on disk, or the recording ended). */
  close(gap: Gap, to: number): void {
    this.closed.push({ from: gap.from, to, reason: gap.reason });
    this.index({ type: 'gap', from: gap.from, to, reason: gap.reason });
    this.events.append({ t: to, kind: 'gap', from: gap.from, to, reason: gap.reason });
  }

  /** `gap` closed at `to` because writing resumed (told to the owner too). */
  resumed(gap: Gap, to: number): void {
    this.close(gap, to);
    this.onStatus?.({ state: 'resumed', from: gap.from, to });
  }

  /** The recording stopped for good at `t` (told to the owner; the gap is opened apart). */
  failed(t: number, reason: string): void {
    this.onStatus?.({ state: 'failed', at: t, reason });
  }
}
