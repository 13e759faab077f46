import { describe, expect, it } from 'vitest';
import { liveRecordingOf } from './liveTimeline.js';
import type { RecordingSummary } from './recordingsWire.js';

const recording = (
  id: string,
  desktopId: string,
  startedAt: number,
  live: boolean,
): RecordingSummary => ({
  id,
  desktop: { id: desktopId, name: desktopId },
  started_at: startedAt,
  ended_at: live ? null : startedAt + 1_000,
  bytes: 0,
  duration_ms: 1_000,
  gaps: [],
  live,
});

describe('liveRecordingOf', () => {
  it("picks this desktop's recording being made, the newest when a rotation lists two", () => {
    const list = [
      recording('old', 'd1', 1_000, false),
      recording('other', 'd2', 5_000, true),
      recording('rotated', 'd1', 2_000, true),
      recording('now', 'd1', 3_000, true),
    ];
    expect(liveRecordingOf(list, 'd1')?.id).toBe('now');
    expect(liveRecordingOf(list, 'd2')?.id).toBe('other');
  });

  it('finds none for a desktop whose recordings have all ended, or another desktop’s only', () => {
    const list = [recording('old', 'd1', 1_000, false), recording('other', 'd2', 5_000, true)];
    expect(liveRecordingOf(list, 'd1')).toBeNull();
    expect(liveRecordingOf(list, 'd3')).toBeNull();
  });
});
