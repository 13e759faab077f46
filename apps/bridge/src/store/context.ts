// What every repository is built from: the kysely handle on the one schema and the clock (tests
// and the bench pass their own `now`).
import type { Kysely } from 'kysely';
import type { Database } from './schema.js';

export interface RepoContext {
  db: Kysely<Database>;
  now: () => number;
}
