// Password hashing for local accounts: argon2id through @node-rs/argon2 with its defaults (the
// OWASP-recommended m=19 MiB, t=2, p=1). `verifyPassword` also answers for people who do not
// exist, by checking against a fixed dummy hash, so the time a sign-in takes does not tell an
// attacker which usernames are real.
import { hash, verify } from '@node-rs/argon2';

let dummyHash: Promise<string> | undefined;

export function hashPassword(password: string): Promise<string> {
  return hash(password);
}

/** True when `password` matches `stored`; false for a missing hash (after the same work). */
export async function verifyPassword(
  stored: string | null | undefined,
  password: string,
): Promise<boolean> {
  if (stored === null || stored === undefined) {
    dummyHash ??= hash('overlay-companion: no such person');
    await verify(await dummyHash, password).catch(() => false);
    return false;
  }
  try {
    return await verify(stored, password);
  } catch {
    // A hash we cannot read (corrupt row) never matches.
    return false;
  }
}
