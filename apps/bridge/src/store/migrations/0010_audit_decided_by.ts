// Who or what decided each AI tool call (ARCHITECTURE: "The audit records who or what decided"):
// `decided_by` (a person's display name, or the rule in words) and `decided_by_person_id` (the
// person, when one decided: their answer, their Stop, their standing permission). approved_by
// named only an approver, so a denial said nothing of who denied.
//
// On SQLite the table is rebuilt with the two columns before the screenshot: a column after a
// large blob makes every listing read the blob's overflow pages to reach it (query() never
// selects the screenshot, which is why it is the last column). The AUTOINCREMENT counter is
// carried over, so ids of purged entries are never handed out again. PostgreSQL keeps large
// values out of line (TOAST), so there the columns are simply added.
// A migration never changes after it shipped: later changes are new files in index.ts's list.
import { sql, type Kysely, type Migration } from 'kysely';
import { createAuditLogIndexes } from './0001_initial.js';
import type { StoreDialect } from './index.js';

export function auditDecidedByMigration(dialect: StoreDialect): Migration {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      if (dialect === 'postgres') {
        await db.schema.alterTable('audit_log').addColumn('decided_by', 'text').execute();
        await db.schema.alterTable('audit_log').addColumn('decided_by_person_id', 'text').execute();
        return;
      }
      const kept =
        'at, kind, actor, person_id, person_name, token_id, token_name, client_name, tool, summary, decision, approved_by, outcome, duration_ms, detail';
      await sql`CREATE TABLE audit_log_new (
        id integer PRIMARY KEY AUTOINCREMENT,
        at bigint NOT NULL, kind text NOT NULL, actor text NOT NULL,
        person_id text, person_name text, token_id text, token_name text, client_name text,
        tool text, summary text, decision text, approved_by text, outcome text,
        duration_ms bigint, detail text, decided_by text, decided_by_person_id text,
        screenshot_mime text, screenshot blob)`.execute(db);
      await sql
        .raw(
          `INSERT INTO audit_log_new (id, ${kept}, screenshot_mime, screenshot) SELECT id, ${kept}, screenshot_mime, screenshot FROM audit_log`,
        )
        .execute(db);
      // The copy set the new counter to the highest id kept; the old one may be higher (purged).
      await sql`DELETE FROM sqlite_sequence WHERE name = 'audit_log_new'`.execute(db);
      await sql`INSERT INTO sqlite_sequence (name, seq)
        SELECT 'audit_log_new', seq FROM sqlite_sequence WHERE name = 'audit_log'`.execute(db);
      await sql`DROP TABLE audit_log`.execute(db);
      await sql`ALTER TABLE audit_log_new RENAME TO audit_log`.execute(db);
      // The indexes of 0001_initial.ts (dropped with the old table).
      await createAuditLogIndexes(db);
    },
  };
}
