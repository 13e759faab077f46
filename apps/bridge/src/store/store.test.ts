// The storage tests: one shared suite (testing/suites/) run against both backends — SQLite in a
// temp data dir, and a real PostgreSQL (testing/postgres.ts starts a throwaway cluster, or uses
// OC_TEST_DATABASE_URL). Without PostgreSQL its half is skipped with the reason printed, unless
// OC_REQUIRE_POSTGRES=1 (CI), where that is a failure. Plus what only one backend has: the
// SQLite files' modes, and pg's int8 parsing staying scoped to our pool.
import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, describe, expect, test } from 'vitest';
import { DATABASE_FILE } from './dataDir.js';
import { backend, type Backend } from './testing/fixture.js';
import { postgresRequired, startTestPostgres } from './testing/postgres.js';
import { auditSuite } from './testing/suites/audit.js';
import { desktopPolicySuite } from './testing/suites/desktopPolicy.js';
import { desktopsSuite } from './testing/suites/desktops.js';
import { integritySuite } from './testing/suites/integrity.js';
import { peopleSuite } from './testing/suites/people.js';
import { preferencesSuite } from './testing/suites/preferences.js';
import { recordingsSuite } from './testing/suites/recordings.js';
import { sessionsAndTokensSuite } from './testing/suites/sessions.js';
import { transferPolicySuite } from './testing/suites/transferPolicy.js';

const postgres = await startTestPostgres();
afterAll(async () => {
  if ('url' in postgres) await postgres.stop();
});

const sqlite = backend('sqlite', () => Promise.resolve(undefined));
const backends: Backend[] = [sqlite];
if ('url' in postgres) backends.push(backend('postgres', () => postgres.newDatabase()));

test('a real PostgreSQL runs the same suite (required when OC_REQUIRE_POSTGRES=1)', async (ctx) => {
  if ('skip' in postgres) {
    if (postgresRequired())
      throw new Error(`PostgreSQL storage tests cannot run: ${postgres.skip}`);
    ctx.skip(postgres.skip);
    return;
  }
  const client = new pg.Client({ connectionString: postgres.url });
  await client.connect();
  try {
    const { rows } = await client.query<{ version: string }>('select version()');
    expect(rows[0]?.version).toMatch(/^PostgreSQL \d+/);
  } finally {
    await client.end();
  }
});

describe.each(backends.map((b) => [b.name, b] as const))('store on %s', (_name, b) => {
  describe('people', () => peopleSuite(b));
  describe('sessions and tokens', () => sessionsAndTokensSuite(b));
  describe('permissions, settings, layouts', () => preferencesSuite(b));
  describe('audit log', () => auditSuite(b));
  describe('integrity', () => integritySuite(b));
  describe('desktops', () => desktopsSuite(b));
  describe('recordings', () => recordingsSuite(b));
  describe('desktop policy', () => desktopPolicySuite(b));
  describe('file transfer policy', () => transferPolicySuite(b));
});

describe('SQLite files', () => {
  test('the database and its WAL files are 0600 in a 0700 data dir', async () => {
    const { store, dataDir } = await sqlite.fresh();
    await store.audit.append({
      at: 1,
      kind: 'stop',
      actor: 'person',
      personId: null,
      personName: null,
    });
    expect((await stat(dataDir)).mode & 0o777).toBe(0o700);
    for (const file of [DATABASE_FILE, `${DATABASE_FILE}-wal`, `${DATABASE_FILE}-shm`]) {
      expect(((await stat(join(dataDir, file))).mode & 0o777).toString(8)).toBe('600');
    }
  });
});

describe.runIf('url' in postgres)('PostgreSQL pool', () => {
  test('int8 comes back as a number from the store, while pg’s global parser is untouched', async () => {
    const pgBackend = backends.find((b) => b.name === 'postgres');
    const { store } = await pgBackend!.fresh();
    const id = await store.audit.append({
      at: 2 ** 41,
      kind: 'stop',
      actor: 'person',
      personId: null,
      personName: null,
    });
    const [entry] = await store.audit.query({ limit: 1 });
    expect(typeof id).toBe('number');
    expect(entry?.at).toBe(2 ** 41);
    const globalInt8 = pg.types.getTypeParser(pg.types.builtins.INT8) as (text: string) => unknown;
    expect(globalInt8('42')).toBe('42');
  });
});
