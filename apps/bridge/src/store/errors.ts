// Turns the two drivers' constraint errors into the store's own error, and tells an outage (the
// database not answering, or unable to write) from a bad query, so callers never look at SQLite
// or PostgreSQL error codes. The driver's text is never passed on: pg's `detail` quotes the
// offending values, which may be a token hash.
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

/**
 * What is wrong when a driver error means the database cannot do its job right now (a server
 * that does not answer, a full disk, a read-only file), in words for people; undefined for an
 * error of the query itself, which retrying will not fix.
 */
export function storeOutage(err: unknown): string | undefined {
  if (typeof err !== 'object' || err === null) return undefined;
  const { code, message } = err as DriverError;
  const text = typeof message === 'string' ? message : '';
  if (typeof code === 'string') {
    // better-sqlite3 (extended result codes, e.g. SQLITE_IOERR_WRITE).
    if (code === 'SQLITE_FULL') return 'the disk under the database is full';
    if (code.startsWith('SQLITE_READONLY')) return 'the database file cannot be written';
    if (code.startsWith('SQLITE_IOERR') || code.startsWith('SQLITE_CANTOPEN')) {
      return 'the database file cannot be read or written';
    }
    if (code.startsWith('SQLITE_BUSY')) return 'the database is locked by another process';
    // PostgreSQL: the server's disk (53100), memory or connection slots (class 53), a server
    // shutting down or starting (57P01-57P03), a broken connection (class 08).
    if (code === '53100') return "the database server's disk is full";
    if (code.startsWith('53') || code.startsWith('57P') || code.startsWith('08')) {
      return 'the database is not answering';
    }
    // Node's socket errors, from pg while connecting or mid-query.
    if (
      /^(ECONNREFUSED|ECONNRESET|ETIMEDOUT|EPIPE|EHOSTUNREACH|ENETUNREACH|EAI_AGAIN)$/.test(code)
    ) {
      return 'the database is not answering';
    }
  }
  // pg's own errors carry no code: a connection that ended, or a pool that could not connect.
  if (
    /^Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error/i.test(
      text,
    )
  ) {
    return 'the database is not answering';
  }
  return undefined;
}
