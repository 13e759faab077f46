// The cost of one audit-log write, as every tool call now pays it: sequential appends of a
// typical draw_overlay entry (measureAuditAppend, apps/bridge/src/store/measure.ts) to the
// embedded SQLite store (WAL, a file in a fresh 0700 data dir, as `serve` opens it), after a
// warm-up. Reported, never asserted.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openStore, prepareDataDir } from '../apps/bridge/src/store/index.js';
import { measureAuditAppend } from '../apps/bridge/src/store/measure.js';
import { summarize, type Summary } from './stats.js';

export interface AuditResults {
  store: 'sqlite';
  audit_append_ms: Summary;
}

export async function benchAuditAppend(samples: number): Promise<AuditResults> {
  const root = await mkdtemp(join(tmpdir(), 'oc-bench-audit-'));
  const dataDir = join(root, 'data');
  try {
    await prepareDataDir(dataDir);
    const store = await openStore({ dataDir });
    try {
      await measureAuditAppend(store, 50); // warm-up: statement preparation, first pages
      const durations = await measureAuditAppend(store, samples);
      return { store: 'sqlite', audit_append_ms: summarize(durations) };
    } finally {
      await store.close();
    }
  } finally {
    await rm(root, { recursive: true, force: true });
  }
}
