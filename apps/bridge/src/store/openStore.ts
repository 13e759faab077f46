// openStore: checks the data dir, opens the backend (SQLite in the data dir, or PostgreSQL when
// a database URL is given), brings the schema up to date with the one migration list, and
// hands out the repositories. The only place that knows which backend is in use.
import { Kysely, Migrator } from 'kysely';
import type { Logger } from 'pino';
import { StartupError, errorMessage } from '../errors.js';
import { apiTokenRepo } from './apiTokens.js';
import { auditRepo } from './audit.js';
import { prepareDataDir } from './dataDir.js';
import { desktopPolicyRepo } from './desktopPolicy.js';
import { desktopRepo } from './desktops.js';
import { layoutRepo } from './layouts.js';
import { migrationProvider, type StoreDialect } from './migrations/index.js';
import { peopleRepo } from './people.js';
import { permissionRepo } from './permissions.js';
import { openPostgres } from './postgres.js';
import type { Database } from './schema.js';
import { recordingRepo } from './recordings.js';
import { settingsRepo } from './settings.js';
import { transferPolicyRepo } from './transferPolicy.js';
import { openSqlite } from './sqlite.js';
import type { Store } from './types.js';
import { webSessionRepo } from './webSessions.js';

export interface OpenStoreOptions {
  /** The bridge's data dir: checked (and created 0700) even when the database is PostgreSQL. */
  dataDir: string;
  /** DATABASE_URL: PostgreSQL when set (and not empty), SQLite in the data dir otherwise. */
  databaseUrl?: string | undefined;
  logger?: Logger | undefined;
  /** The clock for createdAt/updatedAt the store sets itself; Date.now by default. */
  now?: (() => number) | undefined;
}

export async function openStore(options: OpenStoreOptions): Promise<Store> {
  const { dataDir, logger } = options;
  await prepareDataDir(dataDir);
  const databaseUrl = options.databaseUrl?.trim();
  let kind: StoreDialect;
  let where: string;
  let db: Kysely<Database>;
  let afterMigrate: () => Promise<void> = () => Promise.resolve();
  if (databaseUrl !== undefined && databaseUrl !== '') {
    const backend = await openPostgres(databaseUrl, logger);
    kind = 'postgres';
    where = backend.where;
    db = new Kysely<Database>({ dialect: backend.dialect });
  } else {
    const backend = await openSqlite(dataDir);
    kind = 'sqlite';
    where = backend.path;
    db = new Kysely<Database>({ dialect: backend.dialect });
    afterMigrate = () => backend.restrictFiles();
  }

  try {
    await migrate(db, kind, where, logger);
    await afterMigrate();
  } catch (err) {
    await db.destroy();
    throw err;
  }
  logger?.info({ backend: kind, database: where }, 'store: ready');

  const context = { db, now: options.now ?? Date.now };
  let closed: Promise<void> | undefined;
  return {
    kind,
    people: peopleRepo(context),
    sessions: webSessionRepo(context),
    tokens: apiTokenRepo(context),
    permissions: permissionRepo(context),
    settings: settingsRepo(context),
    layouts: layoutRepo(context),
    audit: auditRepo(context),
    desktops: desktopRepo(context),
    recordings: recordingRepo(context),
    desktopPolicy: desktopPolicyRepo(context),
    transferPolicy: transferPolicyRepo(context),
    // Idempotent: a stop path that runs twice (signal during shutdown) must not throw.
    close: () => (closed ??= db.destroy()),
  };
}

async function migrate(
  db: Kysely<Database>,
  kind: StoreDialect,
  where: string,
  logger: Logger | undefined,
): Promise<void> {
  const migrator = new Migrator({ db, provider: migrationProvider(kind) });
  const { error, results } = await migrator.migrateToLatest();
  for (const result of results ?? []) {
    if (result.status === 'Success') {
      logger?.info({ migration: result.migrationName, database: where }, 'store: migrated');
    }
  }
  if (error !== undefined) {
    throw new StartupError(
      `Cannot bring the database schema at ${where} up to date: ${errorMessage(error)}. If a newer Overlay Companion already used this database, run that version (or restore a backup); otherwise check that the database user may create tables.`,
    );
  }
}
