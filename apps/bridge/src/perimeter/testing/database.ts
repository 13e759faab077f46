// Security test support: reads the bridge's SQLite file directly (a second, read-only
// connection; WAL lets it read beside the bridge's writer), to prove that refused requests
// changed nothing and that injection strings left every table and row in place.
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { DATABASE_FILE } from '../../store/dataDir.js';

/** Columns a request may legitimately bump while changing nothing (activity timestamps). */
const VOLATILE_COLUMNS = new Set(['last_seen_at', 'last_used_at']);

export type DatabaseDump = Record<string, Array<Record<string, unknown>>>;

function open(dataDir: string): Database.Database {
  return new Database(join(dataDir, DATABASE_FILE), { readonly: true, fileMustExist: true });
}

/** The names of every table, sorted. */
export function tableNames(dataDir: string): string[] {
  const db = open(dataDir);
  try {
    return db
      .prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")
      .all()
      .map((row) => (row as { name: string }).name);
  } finally {
    db.close();
  }
}

/** Every row of every table, in a stable order, without activity timestamps. */
export function dumpDatabase(dataDir: string): DatabaseDump {
  const db = open(dataDir);
  try {
    const dump: DatabaseDump = {};
    const tables = db
      .prepare(
        "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name",
      )
      .all() as Array<{ name: string }>;
    for (const { name } of tables) {
      const rows = db.prepare(`SELECT * FROM "${name}"`).all() as Array<Record<string, unknown>>;
      dump[name] = rows
        .map((row) =>
          Object.fromEntries(
            Object.entries(row).filter(([column]) => !VOLATILE_COLUMNS.has(column)),
          ),
        )
        .sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b)));
    }
    return dump;
  } finally {
    db.close();
  }
}

/** Rows per table. */
export function rowCounts(dataDir: string): Record<string, number> {
  return Object.fromEntries(
    Object.entries(dumpDatabase(dataDir)).map(([t, rows]) => [t, rows.length]),
  );
}
