// What a person may do with a desktop, in one definition the /api routes and the runtime share:
// its owner owns it, an admin administers every desktop, anyone else has what their grant says,
// or nothing (null: the desktop is not theirs to see).
import type { DesktopAccess } from '@overlay-companion/protocol';
import type { DesktopGrant, DesktopRecord, PersonRecord } from '../store/types.js';

export function accessOf(
  person: Pick<PersonRecord, 'id' | 'role'>,
  desktop: Pick<DesktopRecord, 'id' | 'ownerId'>,
  grants: readonly DesktopGrant[],
): DesktopAccess | null {
  if (desktop.ownerId === person.id) return 'owner';
  if (person.role === 'admin') return 'admin';
  const grant = grants.find((g) => g.desktopId === desktop.id && g.personId === person.id);
  return grant === undefined ? null : grant.level;
}

/** May change the desktop's record and grants: its owner and admins. */
export function mayManage(access: DesktopAccess | null): boolean {
  return access === 'owner' || access === 'admin';
}

/** May use it with their AI (a token may name it): everyone but those with view only. */
export function mayControl(access: DesktopAccess | null): boolean {
  return access !== null && access !== 'view';
}
