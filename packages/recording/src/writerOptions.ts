// What the recording writer is given and gives back: its options (files, keyframe rule, how far
// the disk and the model may fall behind, the clock, who hears of gaps and growth), with their
// defaults here in one place; the status it reports; an event as the caller passes it; and the
// summary of a finished recording.
import type { RecordingEvent } from './events.js';
import type { recordingPaths } from './indexFormat.js';

export interface RecordingWriterOptions {
  /** Directory for the files (created if missing, mode 0700). */
  dir: string;
  /**
   * Keyframes: at the first frame end at least `keyframeIntervalMs` (default 15 000) after the
   * last one, once the recording has grown by half as many bytes as that keyframe took (a seek
   * then replays at most about half a keyframe's worth of the file), and in any case after
   * `maxKeyframeIntervalMs` (default 30 000). Measured on a one-hour office session at
   * 1280×800 (bench/recording.ts): keyframes every 5 s regardless cost 12× the recording's own
   * size; one keyframe's worth, at most 60 s apart, 1× but a seek of ~500 ms on a loaded
   * machine; this rule sits between. Heavy
   * scrolling grows the file fast enough for a keyframe at every interval; while no mask is in
   * force each is a reference keyframe (drawReferences.ts: no pixels decoded or encoded, the
   * visible draws weighed by their rectangles), and a seek draws only what still shows at its
   * moment (reader.ts), so 15 s of scrolling to replay stays well under the 500 ms target. A
   * reference keyframe takes only the bytes of the draws it names, so an office session's come
   * about every 15 s (every 30 s when they were pictures).
   */
  keyframeIntervalMs?: number;
  maxKeyframeIntervalMs?: number;
  /** Recording bytes accepted but not yet on disk, at most (default 8 MiB). */
  maxPendingBytes?: number;
  /** Instructions queued for the model, at most, before the recording stops (default 200 000). */
  maxBacklog?: number;
  /** After a disk failure, how often to try again (default 2000 ms). */
  retryAfterMs?: number;
  /** The clock for instructions fed without a time (default Date.now). */
  now?: () => number;
  /** Told when writing stops (a gap starts) and when it resumes. */
  onStatus?: (status: RecordingStatus) => void;
  /**
   * Told, after each chunk the recording or its keyframes take, how many bytes the recording's
   * files take now (`bytesOnDisk`): the bridge's retention watches a recording grow with it.
   * Called synchronously from the writer's own work; it must not throw or wait.
   */
  onWritten?: (bytes: number) => void;
}

export type RecordingStatus =
  | { state: 'stopped'; from: number; reason: string }
  | { state: 'resumed'; from: number; to: number }
  | { state: 'failed'; at: number; reason: string };

/** An event for the track; `t` defaults to the writer's clock. */
export type RecordingEventInput = RecordingEvent extends infer E
  ? E extends RecordingEvent
    ? Omit<E, 't'> & { t?: number }
    : never
  : never;

export interface RecordingSummary {
  id: string;
  paths: ReturnType<typeof recordingPaths>;
  /** Bytes of the recording file. */
  bytes: number;
  start: number;
  end: number;
  gaps: { from: number; to: number; reason: string }[];
  keyframes: number;
  frames: number;
}

/** The options' defaults (see RecordingWriterOptions). */
export const WRITER_DEFAULTS = {
  keyframeIntervalMs: 15_000,
  maxKeyframeIntervalMs: 30_000,
  maxPendingBytes: 8 * 1024 * 1024,
  /** The keyframes' file may fall this far behind (keyframes are rare, and large). */
  maxPendingKeyBytes: 64 * 1024 * 1024,
  maxBacklog: 200_000,
  retryAfterMs: 2000,
} as const;
