// Connecting to PostgreSQL (a pg Pool) when DATABASE_URL is set: int8 columns come back as JS
// numbers for this pool only (every time and id we store fits in 2^53), idle-connection errors
// are logged instead of crashing the bridge, and the URL's password never reaches a message.
import pg from 'pg';
import { PostgresDialect } from 'kysely';
import type { Logger } from 'pino';
import { StartupError, errorMessage } from '../errors.js';

export interface PostgresBackend {
  /** user@host:port/database, without the password, for logs and messages. */
  where: string;
  dialect: PostgresDialect;
}

function parseInt8(text: string): number {
  const value = Number(text);
  if (!Number.isSafeInteger(value)) {
    // Silent rounding would corrupt times and ids; no column we write can get here.
    throw new RangeError(`int8 value ${text} does not fit a JavaScript number`);
  }
  return value;
}

const INT8_OID: number = pg.types.builtins.INT8;

/** pg's type parsers with int8 as a number; scoped to our Pool via its `types` option. */
const TYPES: pg.CustomTypesConfig = {
  getTypeParser: ((oid: number, format?: 'text' | 'binary'): unknown =>
    oid === INT8_OID && format !== 'binary'
      ? parseInt8
      : pg.types.getTypeParser(oid, format)) as typeof pg.types.getTypeParser,
};

/** The URL as user@host:port/database, or undefined when it is not a URL at all. */
export function describeDatabaseUrl(url: string): string | undefined {
  try {
    const parsed = new URL(url);
    const user = parsed.username === '' ? '' : `${decodeURIComponent(parsed.username)}@`;
    const port = parsed.port === '' ? '' : `:${parsed.port}`;
    return `${user}${parsed.hostname}${port}${parsed.pathname}`;
  } catch {
    return undefined;
  }
}

export async function openPostgres(url: string, logger?: Logger): Promise<PostgresBackend> {
  const where = describeDatabaseUrl(url);
  if (where === undefined || !/^postgres(ql)?:$/.test(new URL(url).protocol)) {
    throw new StartupError(
      'DATABASE_URL is not a PostgreSQL URL: set it to postgres://USER:PASSWORD@HOST:5432/DATABASE, or unset it to use the embedded SQLite database.',
    );
  }
  const pool = new pg.Pool({
    connectionString: url,
    types: TYPES,
    application_name: 'overlay-companion',
    connectionTimeoutMillis: 10_000,
  });
  // A connection dropped while idle (server restart) emits 'error' on the pool; unhandled, that
  // would end the process. The pool replaces the client on the next query.
  pool.on('error', (err) => {
    logger?.warn({ database: where, error: err.message }, 'store: idle PostgreSQL connection lost');
  });
  try {
    // Connect once now so a wrong URL fails at start with its own message, not at first use.
    const client = await pool.connect();
    client.release();
  } catch (err) {
    await pool.end().catch(() => undefined);
    throw new StartupError(
      `Cannot connect to PostgreSQL at ${where} (from DATABASE_URL): ${errorMessage(err)}. Check that the server is running and that the user, password and database in DATABASE_URL are right.`,
    );
  }
  return { where, dialect: new PostgresDialect({ pool }) };
}
