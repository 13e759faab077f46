// Desktops as records: the desktops table (name, kind, parameters, sealed credentials, owner,
// who is in charge), the grants people hold on them, and the desktops an API token may use.
// A migration never changes after it shipped: later changes are new files in index.ts's list.
import { sql, type Kysely, type Migration } from 'kysely';

/**
 * The kinds as of this migration, spelled out rather than read from the protocol package: a
 * kind added later needs its own migration (the check constraint), and this file must keep
 * producing the same schema whatever the protocol grows into.
 */
const KINDS_0002 = ['local', 'vnc', 'guacd-vnc', 'guacd-rdp'] as const;

const quoted = (values: readonly string[]) => sql.join(values.map((value) => sql.lit(value)));

export function desktopsMigration(): Migration {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema
        .createTable('desktops')
        .addColumn('id', 'text', (col) => col.primaryKey())
        .addColumn('name', 'text', (col) => col.notNull())
        // The name lower-cased by the repository (JavaScript's toLowerCase, the same on both
        // backends, unlike SQLite's ASCII-only lower()): what makes names unique ignoring case.
        .addColumn('name_key', 'text', (col) => col.notNull())
        .addColumn('kind', 'text', (col) => col.notNull())
        // JSON text (DesktopParams).
        .addColumn('params', 'text', (col) => col.notNull())
        // Sealed credentials (desktops/credentials.ts), never the password itself.
        .addColumn('secret', 'text')
        .addColumn('owner_id', 'text', (col) =>
          col.notNull().references('people.id').onDelete('cascade'),
        )
        // Null: the owner is in charge.
        .addColumn('in_charge_id', 'text', (col) =>
          col.references('people.id').onDelete('set null'),
        )
        // 1 when a member (not an admin) chose its host: the bridge then keeps it off this
        // machine and link-local addresses (desktops/memberHosts.ts).
        .addColumn('target_set_by_member', 'integer', (col) => col.notNull().defaultTo(0))
        .addColumn('created_at', 'bigint', (col) => col.notNull())
        .addColumn('updated_at', 'bigint', (col) => col.notNull())
        .addCheckConstraint('desktops_member_flag', sql`target_set_by_member in (0, 1)`)
        .addCheckConstraint('desktops_kind_known', sql`kind in (${quoted(KINDS_0002)})`)
        .execute();
      await db.schema
        .createIndex('desktops_name_key')
        .on('desktops')
        .column('name_key')
        .unique()
        .execute();
      // pg does not index foreign keys by itself; the cascades need these.
      await db.schema.createIndex('desktops_owner_idx').on('desktops').column('owner_id').execute();
      await db.schema
        .createIndex('desktops_in_charge_idx')
        .on('desktops')
        .column('in_charge_id')
        .execute();

      await db.schema
        .createTable('desktop_grants')
        .addColumn('desktop_id', 'text', (col) =>
          col.notNull().references('desktops.id').onDelete('cascade'),
        )
        .addColumn('person_id', 'text', (col) =>
          col.notNull().references('people.id').onDelete('cascade'),
        )
        .addColumn('level', 'text', (col) => col.notNull())
        .addColumn('created_at', 'bigint', (col) => col.notNull())
        .addPrimaryKeyConstraint('desktop_grants_pk', ['desktop_id', 'person_id'])
        .addCheckConstraint('desktop_grants_level_known', sql`level in ('view', 'control')`)
        .execute();
      await db.schema
        .createIndex('desktop_grants_person_idx')
        .on('desktop_grants')
        .column('person_id')
        .execute();

      // JSON text: an array of desktop ids, or null for every desktop the person may use. No
      // foreign key (a JSON list cannot have one): a removed desktop's id simply matches nothing.
      await db.schema.alterTable('api_tokens').addColumn('desktop_ids', 'text').execute();
    },
  };
}
