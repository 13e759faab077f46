// @overlay-companion/recording — session recordings in the format guacd writes (the Guacamole
// protocol stream with `sync` timestamps, readable by Guacamole.SessionRecording and guacenc),
// with privacy masks applied, an index of keyframes for fast seeking, an event track, a reader
// that gives the picture at any moment, and a video export.
export { DisplayModel } from './displayModel.js';
export type { DrawObserver } from './displayModel.js';
export type { Rect, Surface } from './layers.js';
export { RecordingWriter } from './writer.js';
export type {
  RecordingEventInput,
  RecordingStatus,
  RecordingSummary,
  RecordingWriterOptions,
} from './writerOptions.js';
export { RecordingReader } from './reader.js';
export type { ReplayFrame } from './reader.js';
export { RecordingEventSchema } from './events.js';
export type { RecordingEvent, RecordingEventKind } from './events.js';
export { IndexEntrySchema, INDEX_VERSION, recordingPaths } from './indexFormat.js';
export type { Gap, IndexEntry, KeyframeEntry } from './indexFormat.js';
export { exportEvents, exportVideo, ExportError } from './export.js';
export type { VideoExportOptions, VideoExportResult } from './export.js';
