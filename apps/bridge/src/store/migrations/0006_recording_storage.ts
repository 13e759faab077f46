// Keeping recordings (P12, item 6): what each recording takes in storage, all its files counted
// (`stored_bytes`: the picture, its keyframes, index and event track — `bytes` stays the
// picture's own size, which the list shows), so retention and the admins' storage view add up
// sizes without reading the disk or an object store; and where its files are (`location`:
// 'local', the data dir's recordings folder, or 's3', the configured bucket). Rows written
// before this migration count 0 until the bridge measures their files at its next start.
import type { Kysely, Migration } from 'kysely';

export function recordingStorageMigration(): Migration {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema
        .alterTable('recordings')
        .addColumn('stored_bytes', 'bigint', (col) => col.notNull().defaultTo(0))
        .execute();
      await db.schema
        .alterTable('recordings')
        .addColumn('location', 'text', (col) => col.notNull().defaultTo('local'))
        .execute();
    },
  };
}
