// The first schema: every table of the sign-in era (people, sign-in sessions, API tokens,
// permissions, settings, monitor layouts, audit log) with their keys and indexes. Written once
// for both dialects; only the audit id and the screenshot bytes need a dialect-specific type.
// A migration never changes after it shipped: later changes are new files in index.ts's list.
import { sql, type Kysely, type Migration } from 'kysely';
import type { StoreDialect } from './index.js';

/**
 * The toggles as of this migration, spelled out rather than read from the protocol package:
 * a toggle added later needs its own migration (a nullable column), and this file must keep
 * producing the same schema whatever the protocol grows into.
 */
const TOGGLES_0001 = [
  'screenshots',
  'input_actions',
  'clipboard_write',
  'clipboard_read',
  'read_pointer_events',
  'read_key_events',
  'audit_typed_text',
  'audit_screenshots',
] as const;

export function initialMigration(dialect: StoreDialect): Migration {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema
        .createTable('people')
        .addColumn('id', 'text', (col) => col.primaryKey())
        .addColumn('username', 'text', (col) => col.notNull())
        .addColumn('display_name', 'text', (col) => col.notNull())
        .addColumn('password_hash', 'text')
        .addColumn('role', 'text', (col) => col.notNull())
        .addColumn('disabled', 'integer', (col) => col.notNull().defaultTo(0))
        .addColumn('oidc_issuer', 'text')
        .addColumn('oidc_subject', 'text')
        .addColumn('created_at', 'bigint', (col) => col.notNull())
        .addColumn('updated_at', 'bigint', (col) => col.notNull())
        // The repository lower-cases; the check keeps a stray write from breaking uniqueness.
        .addCheckConstraint('people_username_lower', sql`username = lower(username)`)
        .addCheckConstraint('people_role_known', sql`role in ('admin', 'member')`)
        .addCheckConstraint('people_disabled_flag', sql`disabled in (0, 1)`)
        .execute();
      await db.schema
        .createIndex('people_username_key')
        .on('people')
        .column('username')
        .unique()
        .execute();
      // One account per OpenID identity; NULLs (password-only people) never collide.
      await db.schema
        .createIndex('people_oidc_key')
        .on('people')
        .columns(['oidc_issuer', 'oidc_subject'])
        .unique()
        .execute();

      await db.schema
        .createTable('web_sessions')
        .addColumn('id_hash', 'text', (col) => col.primaryKey())
        .addColumn('person_id', 'text', (col) =>
          col.notNull().references('people.id').onDelete('cascade'),
        )
        .addColumn('csrf_token', 'text', (col) => col.notNull())
        .addColumn('method', 'text', (col) => col.notNull())
        .addColumn('created_at', 'bigint', (col) => col.notNull())
        .addColumn('last_seen_at', 'bigint', (col) => col.notNull())
        .addColumn('expires_at', 'bigint', (col) => col.notNull())
        .addColumn('source', 'text')
        .execute();
      // pg does not index foreign keys by itself; the cascade and removeForPerson need it.
      await db.schema
        .createIndex('web_sessions_person_idx')
        .on('web_sessions')
        .column('person_id')
        .execute();

      await db.schema
        .createTable('api_tokens')
        .addColumn('id', 'text', (col) => col.primaryKey())
        .addColumn('person_id', 'text', (col) =>
          col.notNull().references('people.id').onDelete('cascade'),
        )
        .addColumn('name', 'text', (col) => col.notNull())
        .addColumn('token_hash', 'text', (col) => col.notNull())
        .addColumn('hint', 'text', (col) => col.notNull())
        .addColumn('created_at', 'bigint', (col) => col.notNull())
        .addColumn('expires_at', 'bigint')
        .addColumn('last_used_at', 'bigint')
        .addColumn('revoked_at', 'bigint')
        .execute();
      await db.schema
        .createIndex('api_tokens_hash_key')
        .on('api_tokens')
        .column('token_hash')
        .unique()
        .execute();
      await db.schema
        .createIndex('api_tokens_person_idx')
        .on('api_tokens')
        .columns(['person_id', 'created_at'])
        .execute();

      let permissions = db.schema
        .createTable('permissions')
        .addColumn('person_id', 'text', (col) =>
          col.primaryKey().references('people.id').onDelete('cascade'),
        )
        .addColumn('updated_at', 'bigint', (col) => col.notNull());
      for (const toggle of TOGGLES_0001) {
        // Null = never chosen (the default applies); see PermissionsTable in schema.ts.
        permissions = permissions.addColumn(toggle, 'integer');
      }
      await permissions.execute();

      await db.schema
        .createTable('settings')
        .addColumn('key', 'text', (col) => col.primaryKey())
        .addColumn('value', 'text', (col) => col.notNull())
        .addColumn('updated_at', 'bigint', (col) => col.notNull())
        .execute();

      await db.schema
        .createTable('monitor_layouts')
        .addColumn('person_id', 'text', (col) =>
          col.notNull().references('people.id').onDelete('cascade'),
        )
        .addColumn('name', 'text', (col) => col.notNull())
        .addColumn('layout', 'text', (col) => col.notNull())
        .addColumn('updated_at', 'bigint', (col) => col.notNull())
        .addPrimaryKeyConstraint('monitor_layouts_pk', ['person_id', 'name'])
        .execute();

      // person_id has no foreign key on purpose: the log must keep what a person did after
      // they are removed (an admin reviewing a removed account needs exactly that), ids are
      // random and never reused so the dangling id still names them, person_name keeps their
      // name as it was, and the hot-path INSERT skips a lookup in people.
      await db.schema
        .createTable('audit_log')
        .addColumn('id', dialect === 'sqlite' ? 'integer' : 'bigint', (col) =>
          // AUTOINCREMENT (not a bare rowid) so ids are never reused after a purge: exported
          // JSON lines and paging cursors stay unambiguous.
          dialect === 'sqlite'
            ? col.primaryKey().autoIncrement()
            : col.primaryKey().generatedByDefaultAsIdentity(),
        )
        .addColumn('at', 'bigint', (col) => col.notNull())
        .addColumn('kind', 'text', (col) => col.notNull())
        .addColumn('actor', 'text', (col) => col.notNull())
        .addColumn('person_id', 'text')
        .addColumn('person_name', 'text')
        .addColumn('token_id', 'text')
        .addColumn('token_name', 'text')
        .addColumn('client_name', 'text')
        .addColumn('tool', 'text')
        .addColumn('summary', 'text')
        .addColumn('decision', 'text')
        .addColumn('approved_by', 'text')
        .addColumn('outcome', 'text')
        .addColumn('duration_ms', 'bigint')
        .addColumn('detail', 'text')
        .addColumn('screenshot_mime', 'text')
        .addColumn('screenshot', dialect === 'sqlite' ? 'blob' : 'bytea')
        .execute();
      await createAuditLogIndexes(db);
    },
  };
}

/**
 * The audit log's indexes (also made again by 0010, which rebuilds the table on SQLite). Each
 * costs the hot-path append a little; these are the ones the audit page uses: a person's entries
 * newest first, a time window (and purgeBefore), one kind.
 */
export async function createAuditLogIndexes(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createIndex('audit_log_person_idx')
    .on('audit_log')
    .columns(['person_id', 'id desc'])
    .execute();
  await db.schema.createIndex('audit_log_at_idx').on('audit_log').column('at').execute();
  await db.schema
    .createIndex('audit_log_kind_idx')
    .on('audit_log')
    .columns(['kind', 'id desc'])
    .execute();
}
