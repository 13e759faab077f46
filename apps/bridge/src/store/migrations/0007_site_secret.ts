// Several bridges as one site (P14): a secret every bridge of the site shares because it is in
// their one database, made once here (migrations run once per database, under the migrator's
// lock). Keys are derived from it (site/siteKeys.ts) for what must be trusted across bridges
// more than the site's NATS credentials: an approval answered in a window on one bridge and sent
// to the bridge whose window waits for it, and the sign-in device cookie, which any bridge of
// the site must be able to check. It never leaves the database and the bridges' memory.
// A migration never changes after it shipped: later changes are new files in index.ts's list.
import { randomBytes } from 'node:crypto';
import { sql, type Kysely, type Migration } from 'kysely';

export function siteSecretMigration(): Migration {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      const secret = randomBytes(32).toString('hex');
      await sql`insert into settings (key, value, updated_at) values ('site_secret', ${JSON.stringify(secret)}, ${Date.now()})`.execute(
        db,
      );
    },
  };
}
