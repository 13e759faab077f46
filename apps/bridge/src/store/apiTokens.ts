// The api_tokens table: MCP clients' bearer tokens, stored as the sha256 of the token (looked up
// by that hash) with a short hint so people can tell them apart. Revoking keeps the row, so the
// person's list and the audit log can still name the token.
import type { Selectable } from 'kysely';
import type { RepoContext } from './context.js';
import { noSuchPerson, withConflicts } from './errors.js';
import type { ApiTokensTable } from './schema.js';
import type { ApiTokenRecord, ApiTokenRepo } from './types.js';

function toRecord(row: Selectable<ApiTokensTable>): ApiTokenRecord {
  return {
    id: row.id,
    personId: row.person_id,
    name: row.name,
    tokenHash: row.token_hash,
    hint: row.hint,
    createdAt: row.created_at,
    expiresAt: row.expires_at,
    lastUsedAt: row.last_used_at,
    revokedAt: row.revoked_at,
    desktopIds: row.desktop_ids === null ? null : parseIds(row.desktop_ids),
  };
}

/** The stored id list; anything else reads as no desktops at all (never as "all of them"). */
function parseIds(text: string): string[] {
  try {
    const value: unknown = JSON.parse(text);
    if (Array.isArray(value)) return value.filter((id): id is string => typeof id === 'string');
  } catch {
    // fall through
  }
  return [];
}

export function apiTokenRepo({ db }: RepoContext): ApiTokenRepo {
  return {
    async create(
      token: Omit<ApiTokenRecord, 'lastUsedAt' | 'revokedAt' | 'desktopIds'> & {
        desktopIds?: string[] | null;
      },
    ): Promise<ApiTokenRecord> {
      const row: Selectable<ApiTokensTable> = {
        id: token.id,
        person_id: token.personId,
        name: token.name,
        token_hash: token.tokenHash,
        hint: token.hint,
        created_at: token.createdAt,
        expires_at: token.expiresAt,
        last_used_at: null,
        revoked_at: null,
        desktop_ids:
          token.desktopIds === undefined || token.desktopIds === null
            ? null
            : JSON.stringify(token.desktopIds),
      };
      await withConflicts(
        () => db.insertInto('api_tokens').values(row).execute(),
        (violation) =>
          violation.kind === 'foreign_key'
            ? noSuchPerson(token.personId)
            : 'A token with the same id or value exists: generate a new token and try again.',
      );
      return toRecord(row);
    },

    async byHash(tokenHash: string): Promise<ApiTokenRecord | undefined> {
      const row = await db
        .selectFrom('api_tokens')
        .selectAll()
        .where('token_hash', '=', tokenHash)
        .executeTakeFirst();
      return row && toRecord(row);
    },

    async byId(id: string): Promise<ApiTokenRecord | undefined> {
      const row = await db
        .selectFrom('api_tokens')
        .selectAll()
        .where('id', '=', id)
        .executeTakeFirst();
      return row && toRecord(row);
    },

    async listForPerson(personId: string): Promise<ApiTokenRecord[]> {
      const rows = await db
        .selectFrom('api_tokens')
        .selectAll()
        .where('person_id', '=', personId)
        // id breaks ties between tokens created in the same millisecond, so the order is stable.
        .orderBy('created_at', 'desc')
        .orderBy('id', 'desc')
        .execute();
      return rows.map(toRecord);
    },

    async revoke(id: string, personId: string, at: number): Promise<boolean> {
      // coalesce keeps the first revocation time: revoking twice succeeds and changes nothing.
      const result = await db
        .updateTable('api_tokens')
        .set((eb) => ({ revoked_at: eb.fn.coalesce('revoked_at', eb.val(at)) }))
        .where('id', '=', id)
        .where('person_id', '=', personId)
        .executeTakeFirst();
      return result.numUpdatedRows > 0n;
    },

    async touch(id: string, lastUsedAt: number): Promise<void> {
      await db
        .updateTable('api_tokens')
        .set({ last_used_at: lastUsedAt })
        .where('id', '=', id)
        .execute();
    },
  };
}
