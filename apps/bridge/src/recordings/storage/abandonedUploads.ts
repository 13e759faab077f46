// Multipart uploads a bridge left unfinished in the bucket (it was killed while moving a
// recording there): S3 keeps their parts, and bills them, until they are aborted, and nothing
// lists them. At start and at each retention pass, the uploads under our prefix that no
// recording may still be uploading are aborted. One may be (and is left alone) while its row
// says it is being written or has not finished its move to the bucket — on any bridge of the
// site, which share the store — or while this bridge's own move of it is queued or under way.
// And none younger than ABANDONED_UPLOAD_AGE_MS is aborted, whoever's it is: a bridge with no
// row yet, an older bridge, a slow uplink. Uploads whose object names are not a recording's
// files are not ours to judge and are left.
import type { Logger } from 'pino';
import type { Store } from '../../store/types.js';
import { recordingIdOf } from './recordingFiles.js';
import type { S3Files } from './s3Files.js';

/**
 * An upload this old is abandoned (when no recording owns it): the largest piece is 256 MiB
 * (retention.ts's MAX_PIECE_BYTES), about 40 minutes at 1 Mbit/s, and the bridge moves one
 * recording at a time; six hours leaves room for a much slower uplink and a long queue, and
 * parts are still not kept for days.
 */
export const ABANDONED_UPLOAD_AGE_MS = 6 * 60 * 60 * 1000;

export interface SweepOptions {
  s3: S3Files;
  store: Store;
  logger: Logger;
  /** Whether this bridge's move of the recording is queued or under way. */
  moving(id: string): boolean;
  /** Now (ms); the tests' backdated uploads make the age, not a clock of their own. */
  now?: number | undefined;
}

/** Aborts the abandoned uploads; returns the keys aborted. Failures are logged, not thrown. */
export async function abortAbandonedUploads(options: SweepOptions): Promise<string[]> {
  const { s3, store, logger } = options;
  const now = options.now ?? Date.now();
  const aborted: string[] = [];
  const uploads = await s3.uploads();
  for (const upload of uploads) {
    const id = recordingIdOf(upload.key.slice(s3.target.prefix.length));
    if (id === undefined || !upload.key.startsWith(s3.target.prefix)) continue;
    // No date: its age cannot be told, so it is not taken for abandoned.
    if (upload.initiated === undefined) continue;
    if (now - upload.initiated.getTime() < ABANDONED_UPLOAD_AGE_MS) continue;
    if (options.moving(id)) continue;
    const row = await store.recordings.byId(id);
    if (row !== undefined && (row.endedAt === null || row.location === 'local')) continue;
    try {
      await s3.abortUpload(upload.key, upload.uploadId);
      aborted.push(upload.key);
    } catch (err) {
      logger.warn(
        { err, key: upload.key },
        'an abandoned multipart upload could not be aborted; tried again later',
      );
    }
  }
  if (aborted.length > 0)
    logger.info(
      { uploads: aborted.length },
      'aborted multipart uploads a bridge left unfinished in the S3 store',
    );
  return aborted;
}
