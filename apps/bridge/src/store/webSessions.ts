// The web_sessions table: who is signed in, keyed by the sha256 of the cookie value (the cookie
// itself is never stored, so a copy of the database cannot sign anyone in). Expiry policy lives
// with the auth code; this file only stores, looks up and deletes.
import type { Selectable } from 'kysely';
import type { RepoContext } from './context.js';
import { noSuchPerson, withConflicts } from './errors.js';
import type { WebSessionsTable } from './schema.js';
import type { WebSessionRecord, WebSessionRepo } from './types.js';

function toRecord(row: Selectable<WebSessionsTable>): WebSessionRecord {
  return {
    idHash: row.id_hash,
    personId: row.person_id,
    csrfToken: row.csrf_token,
    // Written only from WebSessionRecord['method'].
    method: row.method as WebSessionRecord['method'],
    createdAt: row.created_at,
    lastSeenAt: row.last_seen_at,
    expiresAt: row.expires_at,
    source: row.source,
  };
}

export function webSessionRepo({ db }: RepoContext): WebSessionRepo {
  return {
    async create(session: WebSessionRecord): Promise<void> {
      await withConflicts(
        () =>
          db
            .insertInto('web_sessions')
            .values({
              id_hash: session.idHash,
              person_id: session.personId,
              csrf_token: session.csrfToken,
              method: session.method,
              created_at: session.createdAt,
              last_seen_at: session.lastSeenAt,
              expires_at: session.expiresAt,
              source: session.source,
            })
            .execute(),
        (violation) =>
          violation.kind === 'foreign_key'
            ? noSuchPerson(session.personId)
            : 'A sign-in session with the same id exists: mint a new session id.',
      );
    },

    async byIdHash(idHash: string): Promise<WebSessionRecord | undefined> {
      const row = await db
        .selectFrom('web_sessions')
        .selectAll()
        .where('id_hash', '=', idHash)
        .executeTakeFirst();
      return row && toRecord(row);
    },

    async touch(idHash: string, lastSeenAt: number): Promise<void> {
      await db
        .updateTable('web_sessions')
        .set({ last_seen_at: lastSeenAt })
        .where('id_hash', '=', idHash)
        .execute();
    },

    async remove(idHash: string): Promise<boolean> {
      const result = await db
        .deleteFrom('web_sessions')
        .where('id_hash', '=', idHash)
        .executeTakeFirst();
      return result.numDeletedRows > 0n;
    },

    async removeForPerson(personId: string, exceptIdHash?: string): Promise<string[]> {
      let query = db.deleteFrom('web_sessions').where('person_id', '=', personId);
      if (exceptIdHash !== undefined) query = query.where('id_hash', '<>', exceptIdHash);
      // RETURNING (SQLite ≥ 3.35, bundled by better-sqlite3) so the caller can close exactly
      // the sockets of the sessions that ended, without a racy select-then-delete.
      const rows = await query.returning('id_hash').execute();
      return rows.map((row) => row.id_hash);
    },

    async removeExpired(now: number, idleBefore: number): Promise<string[]> {
      const rows = await db
        .deleteFrom('web_sessions')
        .where((eb) => eb.or([eb('expires_at', '<=', now), eb('last_seen_at', '<', idleBefore)]))
        .returning('id_hash')
        .execute();
      return rows.map((row) => row.id_hash);
    },
  };
}
