// Several bridges as one site (P14): each desktop's AI policy as its person in charge left it —
// the mode and the standing permissions ("allow click_at for 15 minutes") — kept in the database
// so every bridge of the site reads the same and a restart of all of them loses nothing; and the
// site's id, made once here (migrations run once per database, under the migrator's lock), which
// names the site's NATS subjects so that two sites on one NATS never hear each other.
// A migration never changes after it shipped: later changes are new files in index.ts's list.
import { randomBytes } from 'node:crypto';
import { sql, type Kysely, type Migration } from 'kysely';

export function siteMigration(): Migration {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema
        .createTable('desktop_policy')
        .addColumn('desktop_id', 'text', (col) =>
          col.primaryKey().references('desktops.id').onDelete('cascade'),
        )
        // Whose policy it is: the mode and standing permissions start afresh when the charge
        // moves, so a row of another person than the one in charge is not read.
        .addColumn('person_id', 'text', (col) =>
          col.notNull().references('people.id').onDelete('cascade'),
        )
        // Null: never set (the bridge's --mode).
        .addColumn('mode', 'text')
        // JSON text: the custom policy, for mode custom.
        .addColumn('mode_metadata', 'text')
        // JSON text: the standing permissions as the bridge keeps them (policy/standingPermissions.ts).
        .addColumn('standing', 'text', (col) => col.notNull().defaultTo('[]'))
        // The last N of "standing permission N" on this desktop (never reused).
        .addColumn('standing_counter', 'integer', (col) => col.notNull().defaultTo(0))
        .addColumn('updated_at', 'bigint', (col) => col.notNull())
        .execute();
      await db.schema
        .createIndex('desktop_policy_person_idx')
        .on('desktop_policy')
        .column('person_id')
        .execute();
      const siteId = randomBytes(9).toString('hex');
      await sql`insert into settings (key, value, updated_at) values ('site_id', ${JSON.stringify(siteId)}, ${Date.now()})`.execute(
        db,
      );
    },
  };
}
