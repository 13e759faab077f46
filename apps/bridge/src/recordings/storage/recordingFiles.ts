// The one way the bridge reads and deletes a recording's files, wherever they are kept: in the
// data dir's recordings folder (localFiles.ts: recordings being written, and every recording
// when no S3 store is configured) or in an S3 bucket (s3Files.ts). The API's routes read
// through this, so a recording replays, seeks, exports and is deleted the same either way.
import type { RecordingReader } from '@overlay-companion/recording';
import type { RecordingLocation } from '../../store/types.js';

/** What a reader must be able to answer: decides how much of a stored recording is fetched. */
export type ReadNeed =
  /** The event track (and the index). */
  | { kind: 'events' }
  /** The picture at epoch ms `t`: one keyframe and the stretch of the picture file after it. */
  | { kind: 'picture'; t: number }
  /** Everything (a video export replays it whole). */
  | { kind: 'all' };

export interface RecordingFiles {
  readonly location: RecordingLocation;
  /**
   * The picture file (`.guac`) as it is now — a recording being written goes on growing; the
   * player reads this much. Undefined when it is gone.
   */
  stream(id: string): Promise<{ body: ReadableStream<Uint8Array>; size: number } | undefined>;
  /**
   * Runs `use` with a reader of the recording that can answer `need`; undefined (and `use` not
   * run) when its files are gone.
   */
  read<T>(
    id: string,
    need: ReadNeed,
    use: (reader: RecordingReader) => Promise<T>,
  ): Promise<T | undefined>;
  /** Deletes every file of the recording (those already gone are no error). */
  remove(id: string): Promise<void>;
}

/** A recording's file names: its random id (22 base64url characters) and what the file is. */
const RECORDING_FILE = /^([A-Za-z0-9_-]{22})\.(guac|keys|index\.jsonl|events\.jsonl)$/;

/** The recording a file (or object, its prefix taken off) belongs to; undefined: none of ours. */
export function recordingIdOf(name: string): string | undefined {
  return RECORDING_FILE.exec(name)?.[1];
}
