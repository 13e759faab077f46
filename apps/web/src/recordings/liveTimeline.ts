// The cockpit's live timeline, the parts without React: which recording is this desktop's live
// one, and when the timeline reads the event track again. Pure, tested without a bridge.
import type { RecordingSummary } from './recordingsWire.js';

/** While the panel is open the event track is read again this often (and on every AI call). */
export const LIVE_REFRESH_MS = 2_000;

/**
 * The recording being made of desktop `desktopId` (the newest when a rotation briefly lists two),
 * or null: a desktop that is not recorded has no live timeline.
 */
export function liveRecordingOf(
  recordings: readonly RecordingSummary[],
  desktopId: string,
): RecordingSummary | null {
  let best: RecordingSummary | null = null;
  for (const recording of recordings) {
    if (!recording.live || recording.desktop.id !== desktopId) continue;
    if (best === null || recording.started_at > best.started_at) best = recording;
  }
  return best;
}
