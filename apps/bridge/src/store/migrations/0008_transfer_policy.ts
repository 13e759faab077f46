// File transfer (P13): whether others with access may move files to and from a desktop is its
// person in charge's choice, kept in the one database so a restarted bridge and every bridge of
// a site read the same answer. The column names the person in charge who turned it on (null:
// only the person in charge may); it counts only while that person is still in charge, and a
// charge move clears it (desktops.ts), so the choice never passes to the next person in charge.
// A migration never changes after it shipped: later changes are new files in index.ts's list.
import type { Kysely, Migration } from 'kysely';

export function transferPolicyMigration(): Migration {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      // No foreign key (SQLite cannot add one to an existing table): the repository compares it
      // with the person in charge on every read, and removing a person moves their charges.
      await db.schema.alterTable('desktops').addColumn('transfer_others_by', 'text').execute();
    },
  };
}
