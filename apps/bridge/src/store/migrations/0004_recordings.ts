// Session recordings (P12): each desktop's recording setting (`recording`: 'off', 'on',
// 'person', or null for the bridge's default) and one row per recording made — the files
// themselves live in the data dir's recordings folder under the row's random id. A recording
// outlives its desktop and the person who owned it (no foreign keys): it is evidence, removed
// only by deleting it.
import type { Kysely, Migration } from 'kysely';

export function recordingsMigration(): Migration {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema.alterTable('desktops').addColumn('recording', 'text').execute();
      await db.schema
        .createTable('recordings')
        .addColumn('id', 'text', (col) => col.primaryKey())
        .addColumn('desktop_id', 'text', (col) => col.notNull())
        // Who owned the desktop when it was recorded.
        .addColumn('owner_id', 'text')
        .addColumn('started_at', 'bigint', (col) => col.notNull())
        // Null while recording (or when the bridge stopped without closing it).
        .addColumn('ended_at', 'bigint')
        .addColumn('bytes', 'bigint', (col) => col.notNull().defaultTo(0))
        // JSON text: [{ from, to, reason }].
        .addColumn('gaps', 'text', (col) => col.notNull().defaultTo('[]'))
        .execute();
      await db.schema
        .createIndex('recordings_desktop_idx')
        .on('recordings')
        .column('desktop_id')
        .execute();
      await db.schema
        .createIndex('recordings_started_idx')
        .on('recordings')
        .column('started_at')
        .execute();
      // No check constraint on desktops.recording (SQLite cannot add one to an existing table):
      // the repository writes only 'off' | 'on' | 'person' and reads anything else as null.
    },
  };
}
