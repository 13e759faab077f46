// Test support: the real servers a site's tests run against — a token-protected nats-server with
// JetStream and a PostgreSQL, both on loopback — started once per test file and stopped after
// all its tests. `missing` says why the site tests cannot run here (site.test.ts skips or, when
// CI requires them, fails with it).
import { afterAll } from 'vitest';
import { startTestPostgres, type TestPostgres } from '../../store/testing/postgres.js';
import { startTestNats, type TestNats } from './natsServer.js';

export async function startSiteServers(): Promise<{
  nats: TestNats;
  postgres: TestPostgres;
  missing: string | undefined;
}> {
  const nats = await startTestNats();
  const postgres = await startTestPostgres();
  afterAll(async () => {
    if ('url' in postgres) await postgres.stop();
    if ('url' in nats) await nats.stop();
  });
  const missing = 'skip' in nats ? nats.skip : 'skip' in postgres ? postgres.skip : undefined;
  // Only read when `missing` is undefined (the suites run only then).
  return { nats: nats as TestNats, postgres: postgres as TestPostgres, missing };
}
