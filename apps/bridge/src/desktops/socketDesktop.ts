// Which desktop a socket (a viewer window, a tunnel, an overlay feed) is for, and what its person
// may do there: the desktop its ticket named (checked again here — a grant can be withdrawn in
// the 30 s a ticket lives), else the person's default desktop. One place, so the three socket
// kinds cannot disagree on who may see what.
import type { Store } from '../store/types.js';
import type { DesktopDirectory, PersonDesktop, PersonLike } from './desktopDirectory.js';

export type SocketDesktop =
  | { ok: true; person: PersonLike; desktop: PersonDesktop }
  | { ok: false; status: 403 | 404; message: string };

export async function socketDesktop(
  store: Pick<Store, 'people'>,
  directory: DesktopDirectory,
  personId: string,
  desktopId: string | undefined,
  only: readonly string[] | null = null,
): Promise<SocketDesktop> {
  const person = await store.people.byId(personId);
  if (person === undefined || person.disabled)
    return { ok: false, status: 403, message: 'Your account is not active; sign in again.' };
  if (desktopId === undefined) {
    const desktop = await directory.defaultFor(person, only);
    if (desktop === undefined)
      return {
        ok: false,
        status: 404,
        message:
          'You have no desktop yet: ask an admin to grant you one (the Desktops page), or to let people add their own.',
      };
    return { ok: true, person, desktop };
  }
  const desktop = await directory.accessFor(person, desktopId);
  if (desktop === undefined || (only !== null && !only.includes(desktopId)))
    return {
      ok: false,
      status: 404,
      message:
        'No such desktop of yours: it was removed or your access to it was withdrawn. Pick another on the Desktops page.',
    };
  return { ok: true, person, desktop };
}
