// The desktops and desktop_grants tables: desktops as records (name, kind, parameters as JSON
// text, sealed credentials, owner, who is in charge) and the grants people hold on them. Names
// are unique ignoring case through name_key, lower-cased here on every write and lookup.
// Removing a desktop removes its grants; removing a person removes their desktops and grants,
// and hands back charge of desktops they were in charge of to the owner (foreign keys).
import type { Selectable } from 'kysely';
import { DesktopParams, type DesktopKind, type GrantLevel } from '@overlay-companion/protocol';
import type { RepoContext } from './context.js';
import { noSuchPerson, withConflicts, type ConstraintKind } from './errors.js';
import { fromFlag, toFlag, type DesktopGrantsTable, type DesktopsTable } from './schema.js';
import type { DesktopGrant, DesktopPatch, DesktopRecord, DesktopRepo } from './types.js';

function nameKey(name: string): string {
  return name.toLowerCase();
}

/**
 * Stored parameters were valid when written; ones that no longer read (a rule added since) are
 * kept as far as they still parse field by field, never thrown on, so the list still loads.
 */
function parseParams(text: string): DesktopParams {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    return {};
  }
  const parsed = DesktopParams.safeParse(raw);
  if (parsed.success) return parsed.data;
  if (typeof raw !== 'object' || raw === null) return {};
  const kept: DesktopParams = {};
  for (const [key, value] of Object.entries(raw as Record<string, unknown>)) {
    const field = DesktopParams.safeParse({ [key]: value });
    if (field.success) Object.assign(kept, field.data);
  }
  return kept;
}

function toRecord(row: Selectable<DesktopsTable>): DesktopRecord {
  return {
    id: row.id,
    name: row.name,
    // The table's check constraint admits only the known kinds.
    kind: row.kind as DesktopKind,
    params: parseParams(row.params),
    secret: row.secret,
    ownerId: row.owner_id,
    inChargeId: row.in_charge_id,
    targetSetByMember: fromFlag(row.target_set_by_member),
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

function toGrant(row: Selectable<DesktopGrantsTable>): DesktopGrant {
  return {
    desktopId: row.desktop_id,
    personId: row.person_id,
    // The table's check constraint admits only the two levels.
    level: row.level as GrantLevel,
    createdAt: row.created_at,
  };
}

function explainConflict(
  violation: { kind: ConstraintKind; where: string },
  name: string | undefined,
  personId: string | undefined,
): string {
  if (violation.kind === 'unique') {
    return `A desktop named "${name ?? ''}" exists (names ignore case): choose another name.`;
  }
  return personId === undefined
    ? 'That person is not (or no longer) there: reload the list and try again.'
    : noSuchPerson(personId);
}

export function desktopRepo({ db, now }: RepoContext): DesktopRepo {
  return {
    async add(desktop): Promise<DesktopRecord> {
      const at = now();
      const row: Selectable<DesktopsTable> = {
        id: desktop.id,
        name: desktop.name,
        name_key: nameKey(desktop.name),
        kind: desktop.kind,
        params: JSON.stringify(desktop.params),
        secret: desktop.secret,
        owner_id: desktop.ownerId,
        in_charge_id: null,
        target_set_by_member: toFlag(desktop.targetSetByMember ?? false),
        created_at: at,
        updated_at: at,
        recording: null,
        transfer_others_by: null,
      };
      await withConflicts(
        () => db.insertInto('desktops').values(row).execute(),
        (violation) => explainConflict(violation, desktop.name, desktop.ownerId),
      );
      return toRecord(row);
    },

    async byId(id: string): Promise<DesktopRecord | undefined> {
      const row = await db
        .selectFrom('desktops')
        .selectAll()
        .where('id', '=', id)
        .executeTakeFirst();
      return row && toRecord(row);
    },

    async byName(name: string): Promise<DesktopRecord | undefined> {
      const row = await db
        .selectFrom('desktops')
        .selectAll()
        .where('name_key', '=', nameKey(name))
        .executeTakeFirst();
      return row && toRecord(row);
    },

    async list(): Promise<DesktopRecord[]> {
      const rows = await db.selectFrom('desktops').selectAll().orderBy('name_key').execute();
      return rows.map(toRecord);
    },

    async update(id: string, patch: DesktopPatch): Promise<DesktopRecord | undefined> {
      const row = await withConflicts(
        () =>
          db
            .updateTable('desktops')
            .set({
              // Only the fields the patch names: absent keeps the value, null clears it.
              ...(patch.name !== undefined && { name: patch.name, name_key: nameKey(patch.name) }),
              ...(patch.params !== undefined && { params: JSON.stringify(patch.params) }),
              ...(patch.secret !== undefined && { secret: patch.secret }),
              ...(patch.ownerId !== undefined && { owner_id: patch.ownerId }),
              ...(patch.inChargeId !== undefined && { in_charge_id: patch.inChargeId }),
              // "Others may transfer" was the person in charge's choice: it ends with their charge.
              ...((patch.inChargeId !== undefined || patch.ownerId !== undefined) && {
                transfer_others_by: null,
              }),
              ...(patch.targetSetByMember !== undefined && {
                target_set_by_member: toFlag(patch.targetSetByMember),
              }),
              updated_at: now(),
            })
            .where('id', '=', id)
            .returningAll()
            .executeTakeFirst(),
        (violation) =>
          explainConflict(violation, patch.name, patch.ownerId ?? patch.inChargeId ?? undefined),
      );
      return row && toRecord(row);
    },

    async remove(id: string): Promise<boolean> {
      const result = await db.deleteFrom('desktops').where('id', '=', id).executeTakeFirst();
      return result.numDeletedRows > 0n;
    },

    async grants(desktopId: string): Promise<DesktopGrant[]> {
      const rows = await db
        .selectFrom('desktop_grants')
        .selectAll()
        .where('desktop_id', '=', desktopId)
        .orderBy('created_at')
        .orderBy('person_id')
        .execute();
      return rows.map(toGrant);
    },

    async grantsForPerson(personId: string): Promise<DesktopGrant[]> {
      const rows = await db
        .selectFrom('desktop_grants')
        .selectAll()
        .where('person_id', '=', personId)
        .orderBy('created_at')
        .orderBy('desktop_id')
        .execute();
      return rows.map(toGrant);
    },

    async setGrant(desktopId: string, personId: string, level: GrantLevel): Promise<void> {
      await withConflicts(
        () =>
          db
            .insertInto('desktop_grants')
            .values({ desktop_id: desktopId, person_id: personId, level, created_at: now() })
            .onConflict((oc) => oc.columns(['desktop_id', 'person_id']).doUpdateSet({ level }))
            .execute(),
        () =>
          `The desktop "${desktopId}" or the person "${personId}" is not (or no longer) there: reload the list and try again.`,
      );
    },

    async removeGrant(desktopId: string, personId: string): Promise<boolean> {
      const result = await db
        .deleteFrom('desktop_grants')
        .where('desktop_id', '=', desktopId)
        .where('person_id', '=', personId)
        .executeTakeFirst();
      return result.numDeletedRows > 0n;
    },
  };
}
