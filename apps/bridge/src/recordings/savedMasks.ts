// The privacy masks last saved per desktop, with how many times they were saved. A recording
// that starts reads its desktop's masks before the writer sees anything; a layout saved while it
// starts finds no recording to tell yet. The count says that happened, so the start takes the
// latest masks instead of the ones it read (recordingLifecycle.ts).
import type { Rect } from '@overlay-companion/recording';

export class SavedMasks {
  private readonly counts = new Map<string, number>();
  private readonly latest = new Map<string, readonly Rect[]>();

  /** The desktop's owner saved a layout with these masks (desktop pixels). */
  saved(desktopId: string, rects: readonly Rect[]): void {
    this.latest.set(desktopId, rects);
    this.counts.set(desktopId, (this.counts.get(desktopId) ?? 0) + 1);
  }

  /** How many times the desktop's masks were saved so far (compare before and after a wait). */
  count(desktopId: string): number {
    return this.counts.get(desktopId) ?? 0;
  }

  /** The masks last saved for the desktop (none saved: no mask). */
  latestOf(desktopId: string): readonly Rect[] {
    return this.latest.get(desktopId) ?? [];
  }
}
