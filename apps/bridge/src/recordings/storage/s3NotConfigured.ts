// A recording whose row says it is kept on an S3 store, met by a bridge started without one (no
// --recordings-s3 / OC_RECORDINGS_S3_URL). The row does not name the bucket, so this bridge can
// neither read nor delete its objects: every read and delete is refused with a 503 saying how to
// reach them — never a 404, which reads as "the recording is gone", and never a deletion of the
// row alone, which would leave its objects in the bucket with nothing listing them.
import type { ApiError } from '@overlay-companion/protocol';
import { HTTPException } from 'hono/http-exception';
import type { RecordingReader } from '@overlay-companion/recording';
import type { ReadNeed, RecordingFiles } from './recordingFiles.js';

/** Why such a recording cannot be played here, in the list and in every refusal. */
export const S3_NOT_CONFIGURED =
  'This recording is kept on an S3 store and this bridge was started without one: start it with the same --recordings-s3 s3://BUCKET/PREFIX (or OC_RECORDINGS_S3_URL) it had when the recording was moved there, to play, export or delete it.';

export class S3NotConfigured implements RecordingFiles {
  readonly location = 's3' as const;

  stream(): Promise<{ body: ReadableStream<Uint8Array>; size: number } | undefined> {
    return Promise.reject(refusal());
  }

  read<T>(_id: string, _need: ReadNeed, _use: (r: RecordingReader) => Promise<T>): Promise<T> {
    return Promise.reject(refusal());
  }

  remove(): Promise<void> {
    return Promise.reject(refusal());
  }
}

/** The API's refusal (the app's onError answers an HTTPException with its own response). */
function refusal(): HTTPException {
  const body: ApiError = { error: S3_NOT_CONFIGURED };
  return new HTTPException(503, {
    message: S3_NOT_CONFIGURED,
    res: Response.json(body, { status: 503, headers: { 'Cache-Control': 'no-store' } }),
  });
}

/** Whether this bridge cannot reach the recording's files (kept on S3, and no store here). */
export function outOfReach(recording: { location: 'local' | 's3' }, here: 'local' | 's3'): boolean {
  return recording.location === 's3' && here !== 's3';
}
