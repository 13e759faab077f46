// The test PostgreSQL helper itself: its databases are real, separate and empty, and stop()
// leaves nothing running (the server no longer answers). Skipped, with the reason, where no
// PostgreSQL can run — and failed instead when OC_REQUIRE_POSTGRES=1.
import pg from 'pg';
import { expect, test } from 'vitest';
import { postgresRequired, startTestPostgres } from './postgres.js';

async function query(url: string, text: string): Promise<unknown[]> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 2_000 });
  await client.connect();
  try {
    return (await client.query(text)).rows as unknown[];
  } finally {
    await client.end();
  }
}

test('startTestPostgres gives fresh databases and stop() ends the server', async (ctx) => {
  const postgres = await startTestPostgres();
  if ('skip' in postgres) {
    if (postgresRequired()) throw new Error(`PostgreSQL is required here: ${postgres.skip}`);
    ctx.skip(postgres.skip);
    return;
  }
  let stopped = false;
  try {
    await query(postgres.url, 'create table marker (id int)');
    const second = await postgres.newDatabase();
    expect(second).not.toBe(postgres.url);
    // The new database does not see the first one's table.
    expect(await query(second, "select * from pg_tables where tablename = 'marker'")).toEqual([]);
    await postgres.stop();
    stopped = true;
    await expect(query(postgres.url, 'select 1')).rejects.toThrow();
  } finally {
    if (!stopped) await postgres.stop();
  }
});
