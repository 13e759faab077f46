// Random secrets and their stored form. Sign-in session ids, API tokens, tickets and the setup
// code are 32 random bytes (base64url); the database keeps only their SHA-256, which is enough
// for secrets this long (nothing to brute-force) and cheap on every request.
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

export function randomSecret(bytes = 32): string {
  return randomBytes(bytes).toString('base64url');
}

export function sha256Hex(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

/**
 * Compares two secrets in constant time. Both are hashed first so their lengths do not leak
 * through an early return (timingSafeEqual needs equal-length inputs).
 */
export function secretsEqual(presented: string, expected: string): boolean {
  const a = createHash('sha256').update(presented).digest();
  const b = createHash('sha256').update(expected).digest();
  return timingSafeEqual(a, b);
}

/** Reads `Authorization: Bearer <token>`; undefined when missing or not a bearer header. */
export function bearerFrom(header: string | undefined): string | undefined {
  if (header === undefined) return undefined;
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
  return match?.[1];
}
