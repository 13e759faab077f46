// Where a recording kept on an S3-compatible store lives (P12, item 6): the bucket and key prefix
// it was moved to, per recording, so changing --recordings-s3 neither orphans nor misreads the
// recordings moved before — a bridge reads and deletes each under its own prefix, and tells one
// in a bucket it is not configured for as unavailable. Null on local recordings, and on those a
// bridge moved before this migration (the bridge fills them in at start when it finds the
// objects under its own bucket and prefix, where that bridge put them).
// A migration never changes after it shipped: later changes are new files in index.ts's list.
import type { Kysely, Migration } from 'kysely';

export function recordingS3PlaceMigration(): Migration {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema.alterTable('recordings').addColumn('s3_bucket', 'text').execute();
      await db.schema.alterTable('recordings').addColumn('s3_prefix', 'text').execute();
    },
  };
}
