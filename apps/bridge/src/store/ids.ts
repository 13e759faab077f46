// Ids the store mints: a short prefix that says what the id names (p_ person, tok_ API token,
// dsk_ desktop) and 128 random bits in base64url, so ids are unguessable, url-safe and never
// reused.
import { randomBytes } from 'node:crypto';

export type IdPrefix = 'p' | 'tok' | 'dsk';

export function newId(prefix: IdPrefix): string {
  return `${prefix}_${randomBytes(16).toString('base64url')}`;
}
