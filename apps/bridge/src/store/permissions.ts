// The permissions table: each person's explicit choices for the permission and audit-privacy
// toggles. A person who never changed anything has no row; every toggle they never chose reads
// as PERMISSION_DEFAULTS (see PermissionsTable in schema.ts for why choices are per column).
import {
  APPROVAL_PREFERENCE_NAMES,
  AUDIT_PREFERENCE_NAMES,
  PERMISSION_DEFAULTS,
  PERMISSION_NAMES,
  defaultPermissions,
  type Permissions,
  type PermissionsPatch,
  type PersonSettingName,
} from '@overlay-companion/protocol';
import type { RepoContext } from './context.js';
import { noSuchPerson, withConflicts } from './errors.js';
import { fromFlag, toFlag, type Flag } from './schema.js';
import type { PermissionRepo } from './types.js';

const TOGGLES: readonly PersonSettingName[] = [
  ...PERMISSION_NAMES,
  ...AUDIT_PREFERENCE_NAMES,
  ...APPROVAL_PREFERENCE_NAMES,
];

export function permissionRepo({ db, now }: RepoContext): PermissionRepo {
  async function get(personId: string): Promise<Permissions> {
    const row = await db
      .selectFrom('permissions')
      .select(TOGGLES)
      .where('person_id', '=', personId)
      .executeTakeFirst();
    const permissions = defaultPermissions();
    if (row === undefined) return permissions;
    for (const toggle of TOGGLES) {
      const choice = row[toggle];
      permissions[toggle] = choice === null ? PERMISSION_DEFAULTS[toggle] : fromFlag(choice);
    }
    return permissions;
  }

  return {
    get,

    async update(personId: string, patch: PermissionsPatch): Promise<Permissions> {
      const chosen: Partial<Record<PersonSettingName, Flag>> = {};
      for (const toggle of TOGGLES) {
        const value = patch[toggle];
        if (value !== undefined) chosen[toggle] = toFlag(value);
      }
      if (Object.keys(chosen).length > 0) {
        const at = now();
        // One upsert of only the named columns: two windows changing different toggles at the
        // same moment cannot undo each other (no read-modify-write).
        await withConflicts(
          () =>
            db
              .insertInto('permissions')
              .values({ person_id: personId, updated_at: at, ...chosen })
              .onConflict((oc) => oc.column('person_id').doUpdateSet({ ...chosen, updated_at: at }))
              .execute(),
          (violation) => (violation.kind === 'foreign_key' ? noSuchPerson(personId) : undefined),
        );
      }
      return get(personId);
    },
  };
}
