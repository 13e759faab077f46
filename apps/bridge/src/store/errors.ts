// Turns the two drivers' constraint errors into the store's own error, so callers never look at
// SQLite or PostgreSQL error codes. The driver's text is never passed on: pg's `detail` quotes
// the offending values, which may be a token hash.
import { StoreConflictError } from './types.js';

/** Which constraint a write ran into, in dialect-neutral terms. */
export type ConstraintKind = 'unique' | 'foreign_key';

interface DriverError {
  code?: unknown;
  /** pg: the violated constraint or index name. */
  constraint?: unknown;
  message?: unknown;
}

/** The constraint a driver error reports, with the constraint/column text to tell them apart. */
export function constraintViolation(
  err: unknown,
): { kind: ConstraintKind; where: string } | undefined {
  if (typeof err !== 'object' || err === null) return undefined;
  const { code, constraint, message } = err as DriverError;
  const text = typeof message === 'string' ? message : '';
  // better-sqlite3 (extended result codes): "UNIQUE constraint failed: people.username".
  if (code === 'SQLITE_CONSTRAINT_UNIQUE' || code === 'SQLITE_CONSTRAINT_PRIMARYKEY') {
    return { kind: 'unique', where: text };
  }
  if (code === 'SQLITE_CONSTRAINT_FOREIGNKEY') return { kind: 'foreign_key', where: text };
  // PostgreSQL SQLSTATE: 23505 unique_violation, 23503 foreign_key_violation.
  const name = typeof constraint === 'string' ? constraint : '';
  if (code === '23505') return { kind: 'unique', where: name };
  if (code === '23503') return { kind: 'foreign_key', where: name };
  return undefined;
}

/**
 * Runs a write and rethrows a constraint violation as StoreConflictError with the sentence
 * `explain` picks for it (undefined keeps the original error).
 */
export async function withConflicts<T>(
  write: () => Promise<T>,
  explain: (violation: { kind: ConstraintKind; where: string }) => string | undefined,
): Promise<T> {
  try {
    return await write();
  } catch (err) {
    const violation = constraintViolation(err);
    const message = violation && explain(violation);
    // No `cause`: loggers print it, and pg's error text can quote a token hash.
    if (message !== undefined) throw new StoreConflictError(message);
    throw err;
  }
}

/** The sentence for a write that names a person who is not (or no longer) there. */
export function noSuchPerson(personId: string): string {
  return `There is no person with id "${personId}" (they may have just been removed): reload the list of people and try again.`;
}
