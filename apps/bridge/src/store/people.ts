// The people table: accounts that can sign in (password, OpenID Connect or both), their role and
// whether they are disabled. Usernames are lower-cased here on every write and lookup, which is
// what makes sign-in names case-insensitive; removing a person cascades to their sessions,
// tokens, permissions and layouts (foreign keys), never to the audit log.
import type { Selectable } from 'kysely';
import type { Role } from '@overlay-companion/protocol';
import type { RepoContext } from './context.js';
import { withConflicts, type ConstraintKind } from './errors.js';
import { newId } from './ids.js';
import { fromFlag, toFlag, type PeopleTable } from './schema.js';
import type { NewPerson, PeopleRepo, PersonPatch, PersonRecord } from './types.js';

export function normalizeUsername(username: string): string {
  return username.toLowerCase();
}

function toRecord(row: Selectable<PeopleTable>): PersonRecord {
  return {
    id: row.id,
    username: row.username,
    displayName: row.display_name,
    passwordHash: row.password_hash,
    // The table's check constraint admits only the two roles.
    role: row.role as Role,
    disabled: fromFlag(row.disabled),
    oidcIssuer: row.oidc_issuer,
    oidcSubject: row.oidc_subject,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

function explainConflict(
  violation: { kind: ConstraintKind; where: string },
  username: string | undefined,
): string | undefined {
  if (violation.kind !== 'unique') return undefined;
  if (violation.where.includes('oidc')) {
    return 'This OpenID Connect identity is already linked to another person: unlink it there first, or sign in as that person.';
  }
  return `The username "${username ?? ''}" is taken (usernames ignore case): choose another one.`;
}

export function peopleRepo({ db, now }: RepoContext): PeopleRepo {
  return {
    async add(person: NewPerson): Promise<PersonRecord> {
      const at = now();
      const row: Selectable<PeopleTable> = {
        id: newId('p'),
        username: normalizeUsername(person.username),
        display_name: person.displayName,
        password_hash: person.passwordHash,
        role: person.role,
        disabled: toFlag(false),
        oidc_issuer: person.oidcIssuer ?? null,
        oidc_subject: person.oidcSubject ?? null,
        created_at: at,
        updated_at: at,
      };
      await withConflicts(
        () => db.insertInto('people').values(row).execute(),
        (violation) => explainConflict(violation, row.username),
      );
      return toRecord(row);
    },

    async byId(id: string): Promise<PersonRecord | undefined> {
      const row = await db.selectFrom('people').selectAll().where('id', '=', id).executeTakeFirst();
      return row && toRecord(row);
    },

    async byUsername(username: string): Promise<PersonRecord | undefined> {
      const row = await db
        .selectFrom('people')
        .selectAll()
        .where('username', '=', normalizeUsername(username))
        .executeTakeFirst();
      return row && toRecord(row);
    },

    async byOidc(issuer: string, subject: string): Promise<PersonRecord | undefined> {
      const row = await db
        .selectFrom('people')
        .selectAll()
        .where('oidc_issuer', '=', issuer)
        .where('oidc_subject', '=', subject)
        .executeTakeFirst();
      return row && toRecord(row);
    },

    async list(): Promise<PersonRecord[]> {
      const rows = await db.selectFrom('people').selectAll().orderBy('username').execute();
      return rows.map(toRecord);
    },

    async update(id: string, patch: PersonPatch): Promise<PersonRecord | undefined> {
      const row = await withConflicts(
        () =>
          db
            .updateTable('people')
            .set({
              // Only the fields the patch names: absent keeps the value, null clears it.
              ...(patch.displayName !== undefined && { display_name: patch.displayName }),
              ...(patch.passwordHash !== undefined && { password_hash: patch.passwordHash }),
              ...(patch.role !== undefined && { role: patch.role }),
              ...(patch.disabled !== undefined && { disabled: toFlag(patch.disabled) }),
              ...(patch.oidcIssuer !== undefined && { oidc_issuer: patch.oidcIssuer }),
              ...(patch.oidcSubject !== undefined && { oidc_subject: patch.oidcSubject }),
              updated_at: now(),
            })
            .where('id', '=', id)
            .returningAll()
            .executeTakeFirst(),
        (violation) => explainConflict(violation, undefined),
      );
      return row && toRecord(row);
    },

    async remove(id: string): Promise<boolean> {
      const result = await db.deleteFrom('people').where('id', '=', id).executeTakeFirst();
      return result.numDeletedRows > 0n;
    },

    async countActiveAdmins(): Promise<number> {
      const row = await db
        .selectFrom('people')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('role', '=', 'admin')
        .where('disabled', '=', toFlag(false))
        .executeTakeFirstOrThrow();
      return Number(row.n);
    },
  };
}
