// Adding a person, as first-run setup and the admins' People page both do it: the password hashed
// (argon2id), the username's uniqueness left to the store, and a taken name answered as a 409 that
// names the field — one place, so both routes refuse the same way.
import type { Context } from 'hono';
import { hashPassword } from '../auth/passwords.js';
import { apiError } from '../http/apiError.js';
import { StoreConflictError, type PersonRecord, type Store } from '../store/types.js';

export async function addPerson(
  c: Context,
  store: Store,
  person: {
    username: string;
    displayName: string | undefined;
    password: string | undefined;
    role: PersonRecord['role'];
  },
): Promise<{ ok: true; person: PersonRecord } | { ok: false; response: Response }> {
  try {
    const added = await store.people.add({
      username: person.username,
      displayName: person.displayName ?? person.username,
      passwordHash: person.password === undefined ? null : await hashPassword(person.password),
      role: person.role,
    });
    return { ok: true, person: added };
  } catch (err) {
    if (err instanceof StoreConflictError) {
      return {
        ok: false,
        response: apiError(c, 409, 'That username is taken; pick another.', { field: 'username' }),
      };
    }
    throw err;
  }
}
