// Holding the recordings being written for the disk's free space: below the free space the
// admin's limits keep, every recording being written is held (a gap, and the windows say why)
// until the disk has that and a tenth more again — including one that takes its place while the
// hold is decided (recordingLifecycle.ts hands each new one to apply()). Keeping (keeping.ts) checks the
// disk at each retention pass.
import { statfs } from 'node:fs/promises';
import type { Logger } from 'pino';
import type { RecordingWriter } from '@overlay-companion/recording';
import { formatBytes, type RetentionLimits } from './retention.js';

export interface DiskSpace {
  freeBytes: number;
  sizeBytes: number;
}

/** A recording being written, as far as holding it goes. */
export interface HeldRecording {
  readonly writer: Pick<RecordingWriter, 'hold' | 'release'>;
  /** Held for lack of free space (writer.hold). */
  held: boolean;
}

export class FreeSpaceHold {
  /** Why recordings are held for lack of free space (null: they are not). */
  private heldFor: string | null = null;

  constructor(
    /** The recordings' folder: its disk is the one measured. */
    private readonly dir: string,
    private readonly logger: Logger,
    /** Free and total bytes of the disk holding `dir` (default: statfs). */
    private readonly read: ((dir: string) => Promise<DiskSpace>) | undefined,
  ) {}

  /** Why recordings are not writing for lack of free space now (null: they may write). */
  get reason(): string | null {
    return this.heldFor;
  }

  /** Free and total bytes of the recordings' disk (undefined when it cannot be read). */
  async diskSpace(): Promise<DiskSpace | undefined> {
    const read = this.read ?? statfsSpace;
    return read(this.dir).catch(() => undefined);
  }

  /**
   * Holds or releases one recording being written to match the disk's free space as last
   * checked. Called for every one by check(), and by recordingLifecycle.ts for one as it becomes the
   * desktop's (`t`: its start, so its gap covers it from its first moment).
   */
  apply(active: HeldRecording, t?: number): void {
    if (this.heldFor !== null && !active.held) {
      active.held = true;
      active.writer.hold(this.heldFor, t);
    } else if (this.heldFor === null && active.held) {
      active.held = false;
      active.writer.release(t);
    }
  }

  /**
   * Holds every recording while the disk has less free than the limit keeps (and any that starts
   * meanwhile), and lets them write again once it has the limit and a tenth more (so a disk
   * hovering at the limit does not start and stop them at every pass). Resolves with why they
   * are held (null: they may write).
   */
  async check(
    limits: RetentionLimits,
    beingWritten: Iterable<HeldRecording>,
  ): Promise<string | null> {
    const space = limits.minFreeBytes > 0 ? await this.diskSpace() : undefined;
    if (space !== undefined && space.freeBytes < limits.minFreeBytes) {
      const reason = `the disk is nearly full (${formatBytes(space.freeBytes)} free; recordings keep ${formatBytes(limits.minFreeBytes)} free)`;
      if (this.heldFor === null)
        this.logger.warn({ free: space.freeBytes }, 'recordings held: the disk is nearly full');
      this.heldFor = reason;
    } else if (
      this.heldFor !== null &&
      (space === undefined || space.freeBytes >= limits.minFreeBytes * 1.1)
    ) {
      this.heldFor = null;
      this.logger.info('recordings write again: the disk has room');
    }
    for (const active of beingWritten) this.apply(active);
    return this.heldFor;
  }
}

async function statfsSpace(dir: string): Promise<DiskSpace> {
  const s = await statfs(dir);
  return { freeBytes: s.bavail * s.bsize, sizeBytes: s.blocks * s.bsize };
}
