// Opening the embedded SQLite database (better-sqlite3) in the data dir: the file is created 0600
// before SQLite touches it, then WAL mode, foreign keys and a busy timeout are set on the one
// connection kysely uses, whose compiled statements are kept for reuse.
import { closeSync, openSync } from 'node:fs';
import { access } from 'node:fs/promises';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { SqliteDialect, type SqliteDatabase } from 'kysely';
import { StartupError, errorMessage } from '../errors.js';
import { DATABASE_FILE, restrictFile } from './dataDir.js';

/** How long a write waits for another process's lock before failing (ms). */
const BUSY_TIMEOUT_MS = 5_000;
/**
 * SQLite's page cache for the one connection, in KiB: SQLite's own default. better-sqlite3 builds
 * SQLite with 16,000 KiB, and the cache keeps each page the audit log appends until it is full,
 * so a busy bridge's memory grew with its database for 16 MB (1.7 MB/min under the soak bench's
 * 100 screenshots/s, read as a leak). The OS caches the file anyway.
 */
export const PAGE_CACHE_KIB = 2_000;
/** Compiled statements kept; our queries are a few dozen distinct texts. */
const MAX_STATEMENTS = 256;

/**
 * kysely prepares every query it runs, and better-sqlite3 compiles SQL on every prepare() (about
 * as long as running a small INSERT): keep compiled statements by SQL text, least recently used
 * dropped first. Safe to reuse: kysely runs one query at a time on its one connection and each to
 * completion, and SQLite recompiles a statement itself when the schema changes.
 */
function keepingStatements(db: Database.Database): SqliteDatabase {
  const statements = new Map<string, Database.Statement>();
  return {
    close: () => db.close(),
    prepare(sql) {
      let statement = statements.get(sql);
      if (statement !== undefined) {
        statements.delete(sql);
      } else {
        statement = db.prepare(sql);
        if (statements.size >= MAX_STATEMENTS) {
          const oldest = statements.keys().next().value;
          if (oldest !== undefined) statements.delete(oldest);
        }
      }
      statements.set(sql, statement);
      return statement;
    },
  };
}

export interface SqliteBackend {
  path: string;
  dialect: SqliteDialect;
  /** Makes the database and its -wal/-shm files 0600 (call once the schema is written). */
  restrictFiles(): Promise<void>;
}

export async function openSqlite(dataDir: string): Promise<SqliteBackend> {
  const path = join(dataDir, DATABASE_FILE);
  let sqlite: Database.Database;
  try {
    // SQLite would create the file 0644 (minus the umask); create it 0600 first instead. 'a'
    // never truncates an existing database.
    closeSync(openSync(path, 'a', 0o600));
    await restrictFile(path);
    sqlite = new Database(path, { timeout: BUSY_TIMEOUT_MS });
    // WAL: readers never block the writer, and a commit is one append to the log.
    const mode: unknown = sqlite.pragma('journal_mode = WAL', { simple: true });
    if (mode !== 'wal') throw new Error(`journal_mode stayed ${String(mode)}`);
    // NORMAL in WAL mode skips the fsync on each commit (checkpoints still sync): the file
    // stays consistent after a power cut, which may lose the last commits. That is what keeps
    // the per-tool-call audit INSERT well under a millisecond.
    sqlite.pragma('synchronous = NORMAL');
    sqlite.pragma(`cache_size = -${PAGE_CACHE_KIB}`);
    // Per connection, and off in SQLite's own default build (better-sqlite3's build turns it
    // on): said explicitly so the ON DELETE CASCADEs never hang on a build flag.
    sqlite.pragma('foreign_keys = ON');
  } catch (err) {
    throw new StartupError(
      `Cannot open the database ${path}: ${errorMessage(err)}. Check that the data dir is on a local disk with free space and that no other program holds the file, or pass another --data-dir.`,
    );
  }
  return {
    path,
    dialect: new SqliteDialect({ database: keepingStatements(sqlite) }),
    async restrictFiles() {
      for (const file of [path, `${path}-wal`, `${path}-shm`]) {
        // SQLite gives -wal/-shm the database file's mode; this covers files left by older runs.
        if (await exists(file)) await restrictFile(file);
      }
    },
  };
}

async function exists(path: string): Promise<boolean> {
  try {
    await access(path);
    return true;
  } catch {
    return false;
  }
}
