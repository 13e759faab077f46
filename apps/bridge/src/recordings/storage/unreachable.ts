// A recording kept on an S3 store this bridge cannot reach, and why: it was started without an
// S3 store, or the recording's row names a bucket it is not configured for (bucket and prefix
// are recorded per recording since migration 0009), or an older bridge moved it without saying
// where and it is not under this bridge's bucket and prefix. Every read is refused with a 503
// saying where the recording is and what to do — never a 404, which reads as "the recording is
// gone". Retention leaves such a recording alone (deleting its row would leave its objects with
// nothing to list them; counting it would delete local ones to make room for it); an admin may
// remove it from the list, knowingly leaving its objects where they are.
import type { ApiError } from '@overlay-companion/protocol';
import { HTTPException } from 'hono/http-exception';
import type { RecordingReader } from '@overlay-companion/recording';
import type { RecordingRecord } from '../../store/types.js';
import type { ReadNeed, RecordingFiles } from './recordingFiles.js';
import type { S3Target } from './s3Config.js';

/** What a person with the right to may still do about it, said in every such reason. */
const ADMIN_NOTE =
  'An admin can remove it from the list; its objects then stay where they are, not deleted.';

/** What a person who is not an admin is told about any such recording (where it is: admins'). */
export const UNREACHABLE_FOR_MEMBERS =
  'This recording is kept on an S3 store this bridge cannot reach, so it cannot be played here. An admin can make it playable again, or remove it from the list.';

/** Why a recording moved by an older bridge (no bucket recorded) cannot be played here. */
export const S3_NOT_CONFIGURED = `This recording is kept on an S3 store and this bridge was started without one: start it with the same --recordings-s3 s3://BUCKET/PREFIX (or OC_RECORDINGS_S3_URL) it had when the recording was moved there, to play, export or delete it. ${ADMIN_NOTE}`;

/** Where a recording's row says it lives. */
export type Place = Pick<RecordingRecord, 'location'> &
  Partial<Pick<RecordingRecord, 's3Bucket' | 's3Prefix'>>;

/** The row's S3 place as people read it; undefined when it is not recorded (or local). */
export function placeText(row: Place): string | undefined {
  return row.location === 's3' && row.s3Bucket != null
    ? `s3://${row.s3Bucket}/${row.s3Prefix ?? ''}`
    : undefined;
}

/**
 * Why this bridge (configured for `target`, or for no S3 store) cannot reach the recording's
 * files; undefined when it can. `notFound`: an older bridge's row without a bucket whose
 * objects are not under `target` (checked at start).
 */
export function unreachableReason(
  row: Place,
  target: S3Target | undefined,
  notFound: boolean,
): string | undefined {
  if (row.location !== 's3') return undefined;
  const where = placeText(row);
  if (target === undefined)
    return where === undefined
      ? S3_NOT_CONFIGURED
      : `This recording is kept in ${where} and this bridge was started without an S3 store (not configured for it): start it with --recordings-s3 ${where} (or OC_RECORDINGS_S3_URL) to play, export or delete it. ${ADMIN_NOTE}`;
  const here = `s3://${target.bucket}/${target.prefix}`;
  if (where === undefined)
    return notFound
      ? `This recording was moved to an S3 store before bridges recorded the bucket, and it is not found under ${here}, where this bridge keeps recordings: start the bridge with the --recordings-s3 it had then to play, export or delete it. ${ADMIN_NOTE}`
      : undefined;
  if (row.s3Bucket !== target.bucket)
    return `This recording is kept in ${where}, a bucket this bridge is not configured for (it keeps recordings in ${here}): start a bridge with --recordings-s3 ${where} (or OC_RECORDINGS_S3_URL) to play, export or delete it. ${ADMIN_NOTE}`;
  return undefined;
}

/** The files of a recording out of reach: every read and delete refused, saying why. */
export class Unreachable implements RecordingFiles {
  readonly location = 's3' as const;

  constructor(private readonly reason: string) {}

  stream(): Promise<{ body: ReadableStream<Uint8Array>; size: number } | undefined> {
    return Promise.reject(refusal(this.reason));
  }

  read<T>(_id: string, _need: ReadNeed, _use: (r: RecordingReader) => Promise<T>): Promise<T> {
    return Promise.reject(refusal(this.reason));
  }

  remove(): Promise<void> {
    return Promise.reject(refusal(this.reason));
  }
}

/** The API's refusal (the app's onError answers an HTTPException with its own response). */
function refusal(reason: string): HTTPException {
  const body: ApiError = { error: reason };
  return new HTTPException(503, {
    message: reason,
    res: Response.json(body, { status: 503, headers: { 'Cache-Control': 'no-store' } }),
  });
}
