// The writer's display model kept current off the live path. Decoding every image the server
// sends into the model is nearly all a recording costs (measured on heavy scrolling: 94 % of the
// writer's CPU; encoding keyframes 2 %). While no mask is in force and no gap is open the file
// holds exactly the server's drawing, so the model need not follow the stream: it follows the
// file, later — and, catching up, draws only what is still visible at the next keyframe or at
// the end of the catch-up, the only moments it is looked at (visibleDraws.ts: a heavy scroll's
// images are nearly all scrolled away by then, and are never decoded). It catches up — replaying the file from where it was, the writer writing the
// keyframes due on the way, at the same frames and by the same rule as if it had been current —
// once the desktop has been still for `quietMs`, when the file has run `maxLagBytes` or
// `maxLagMs` ahead of it (so the keyframes of a recording being made, which its thumbnails seek
// with, trail by a minute at most), when the recording closes, and before anything that needs the
// picture now (the writer calls catchUp() and stopFollowing(): a mask appearing, a gap, a hold).
// Catching up reads the disk and, for what the disk has not confirmed, the writer's own copies of
// those chunks (kept here), so bytes a failing disk lost still reach the model. While the writer
// keeps the model live (a mask in force, a gap open) this module does nothing.
import type { GuacInstruction } from '@overlay-companion/guac';
import type { DisplayModel } from './displayModel.js';
import { instructionsFrom, type UnconfirmedChunk } from './fileTail.js';
import { applyVisible } from './visibleDraws.js';

/** A frame written while following: its time, and the file's offset after its sync. */
export interface SyncPoint {
  t: number;
  offset: number;
}

export interface FileFollowingOptions {
  model: DisplayModel;
  /** The recording file the model follows. */
  path: string;
  quietMs: number;
  maxLagBytes: number;
  maxLagMs: number;
  /** The desktop has been still for quietMs: the writer queues a catch-up (in its order). */
  quiet: () => void;
  /**
   * At each frame replayed that the disk holds (`point`, in the file up to `end`), after every
   * instruction before it was `applied`: whether the writer wants a keyframe there.
   */
  keyframeDue: (point: SyncPoint) => boolean;
  /** The model now holds exactly the picture at `point`, where a keyframe is due: write it. */
  frameReplayed: (point: SyncPoint) => Promise<void>;
  /** An instruction replayed, in order (the writer notes what drew). */
  applied: (instruction: GuacInstruction) => void;
}

export class FileFollowingModel {
  /**
   * True while the model does not follow the stream (no mask, no gap): it has applied the file up
   * to `modelAt`, and `syncPoints` are the frames written since, in order, for the keyframes due
   * on the way when it catches up.
   */
  private lazy = true;
  private modelAt = 0;
  private syncPoints: SyncPoint[] = [];
  /** Chunks of the recording file written while lazy and not yet confirmed by the disk. */
  private unconfirmed: UnconfirmedChunk[] = [];
  private quietTimer: NodeJS.Timeout | undefined;

  constructor(private readonly options: FileFollowingOptions) {}

  /** Whether the model follows the file (true) or the writer keeps it live (false). */
  get following(): boolean {
    return this.lazy;
  }

  /** From file offset `offset` on, the model follows the file (nothing needs it live now). */
  followFrom(offset: number): void {
    this.lazy = true;
    this.modelAt = offset;
    this.syncPoints = [];
    this.unconfirmed = [];
  }

  /** The model is caught up and from now on the writer keeps it live. */
  stopFollowing(): void {
    this.lazy = false;
    this.unconfirmed = [];
  }

  /** A chunk about to be written at `start`, to keep until the disk confirms it (when following). */
  chunkFor(start: number, chunk: Buffer): UnconfirmedChunk | undefined {
    return this.lazy ? { start, chunk } : undefined;
  }

  /** The file took (or dropped) `kept`: the model replays it from this copy until confirmed. */
  track(kept: UnconfirmedChunk | undefined): void {
    if (kept !== undefined) this.unconfirmed.push(kept);
  }

  /** The disk confirmed `kept` and everything before it: the file itself has those bytes. */
  confirmed(kept: UnconfirmedChunk | undefined): void {
    if (kept === undefined) return;
    const at = this.unconfirmed.indexOf(kept);
    if (at >= 0) this.unconfirmed.splice(0, at + 1);
  }

  /** Drawing that never reaches the file (a gap), at file offset `start`, kept for the model. */
  keepForModel(start: number, text: string): void {
    if (!this.lazy || text.length === 0) return;
    this.unconfirmed.push({ start, chunk: Buffer.from(text, 'utf8') });
  }

  /** A frame written at `offset` on the recording's clock `t`, for the keyframes on the way. */
  frameWritten(t: number, offset: number): void {
    this.syncPoints.push({ t, offset });
  }

  /**
   * After a frame written at `offset` (its time `t`): whether the model has fallen far enough
   * behind to catch up now; if not, it will once the desktop has been still for quietMs.
   */
  dueNow(t: number, offset: number): boolean {
    const oldest = this.syncPoints[0]?.t ?? t;
    if (offset - this.modelAt >= this.options.maxLagBytes || t - oldest >= this.options.maxLagMs)
      return true;
    this.armQuietTimer();
    return false;
  }

  /**
   * Replays the file from `modelAt` to `end` into the model, calling frameReplayed at each frame
   * a keyframe is due at. The model is exact only there and at `end`, the only moments anything
   * looks at it: the instructions between are gathered and only the draws still visible at the
   * next such moment are drawn (visibleDraws.ts).
   */
  async catchUp(end: number): Promise<void> {
    this.clearQuietTimer();
    const { path, keyframeDue, frameReplayed, applied } = this.options;
    const unconfirmed = [...this.unconfirmed];
    const points = this.syncPoints;
    this.syncPoints = [];
    let next = 0;
    let stretch: GuacInstruction[] = [];
    for await (const batch of instructionsFrom(path, this.modelAt, end, unconfirmed)) {
      for (const instruction of batch) {
        if (instruction.opcode === 'sync') {
          const point = points[next++];
          // A frame the failing disk lost has no place in the file for a keyframe to point at.
          if (point !== undefined && point.offset <= end && keyframeDue(point)) {
            await applyVisible(this.options.model, stretch);
            stretch = [];
            await frameReplayed(point);
          }
          continue;
        }
        stretch.push(instruction);
        applied(instruction);
      }
    }
    await applyVisible(this.options.model, stretch);
    this.options.model.takeDirty();
    this.modelAt = end;
    this.unconfirmed = [];
  }

  clearQuietTimer(): void {
    if (this.quietTimer !== undefined) clearTimeout(this.quietTimer);
    this.quietTimer = undefined;
  }

  private armQuietTimer(): void {
    this.clearQuietTimer();
    this.quietTimer = setTimeout(() => {
      this.quietTimer = undefined;
      this.options.quiet();
    }, this.options.quietMs);
    this.quietTimer.unref();
  }
}
