// The embedded SQLite database's memory stays bounded while the audit log grows: the bridge's one
// connection keeps at most PAGE_CACHE_KIB of pages (sqlite.ts). With better-sqlite3's build
// default (16,000 KiB) the cache kept every page the audit appended until 16 MB — what the soak
// bench read as the bridge's native memory growing ~1.7 MB/min. Measured on malloc's main heap
// between the database at 3 MB and at 19 MB: the bounded cache is full before the first sample
// and adds nothing after it (+0.4 to +1.2 MB measured); the 16 MB one adds ~16 MB (+17.6 MB
// measured with the pragma removed: fails). Memory, not time: the bound is far from both.
import { readFileSync, statSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isMainThread } from 'node:worker_threads';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DATABASE_FILE } from './dataDir.js';
import { sampleAuditEntry } from './measure.js';
import { openStore } from './openStore.js';
import { PAGE_CACHE_KIB } from './sqlite.js';
import type { Store } from './types.js';

const MB = 1024 * 1024;
/** The database sizes between which RSS is compared. */
const FROM_BYTES = 3 * MB;
const TO_BYTES = 19 * MB;
/** Growth allowed between them: well above the noise, well below the unbounded cache's ~13 MB. */
const MAX_GROWTH_BYTES = 6 * MB;
/** Entries per INSERT, as the audit log's queue writes a burst. */
const BATCH = 50;

/**
 * The resident size of malloc's main heap (the `[heap]` mapping), where SQLite's page cache lives:
 * the bridge's JavaScript calls SQLite on the main thread. Not the whole RSS: V8 touches pages it
 * had already committed as its old space fills, which would hide or fake a few MB here.
 */
function mainHeapBytes(): number {
  // On a worker thread SQLite would allocate from that thread's own arena, not this mapping.
  if (!isMainThread) throw new Error("measures malloc's main heap: run in vitest's forks pool");
  const smaps = readFileSync('/proc/self/smaps', 'utf8');
  const at = smaps.search(/^[0-9a-f]+-[0-9a-f]+ .* \[heap\]$/m);
  if (at < 0) throw new Error('no [heap] mapping in /proc/self/smaps');
  const kb = /^Anonymous:\s+(\d+) kB/m.exec(smaps.slice(at))?.[1];
  return Number(kb) * 1024;
}

describe('SQLite memory while the audit log grows', () => {
  let dataDir: string;
  let store: Store;

  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'oc-sqlite-memory-'));
    store = await openStore({ dataDir });
  });
  afterAll(async () => {
    await store.close();
    await rm(dataDir, { recursive: true, force: true });
  });

  it(`keeps at most ${PAGE_CACHE_KIB} KiB of pages: malloc's heap flat while the database grows 16 MB`, async () => {
    const file = join(dataDir, DATABASE_FILE);
    // The database file alone lags its WAL by up to a checkpoint; both hold appended pages.
    const size = () =>
      [file, `${file}-wal`].reduce((sum, f) => {
        try {
          return sum + statSync(f).size;
        } catch {
          return sum;
        }
      }, 0);
    let n = 0;
    const appendUntil = async (bytes: number) => {
      while (size() < bytes) {
        const entries = Array.from({ length: BATCH }, () => ({
          ...sampleAuditEntry(Date.now()),
          // Distinct text, so nothing compresses the test's data into fewer pages.
          summary: `call ${n++}: ${'rect at (120, 80) 300×200, label "Submit button" '.repeat(4)}`,
        }));
        await store.audit.appendMany(entries);
      }
    };
    await appendUntil(FROM_BYTES);
    const before = mainHeapBytes();
    await appendUntil(TO_BYTES);
    const after = mainHeapBytes();
    console.log(
      `sqlite memory: ${n} audit entries, database ${(size() / MB).toFixed(1)} MB, ` +
        `malloc's main heap +${((after - before) / MB).toFixed(1)} MB from ${(FROM_BYTES / MB).toFixed(0)} MB on`,
    );
    expect(after - before).toBeLessThan(MAX_GROWTH_BYTES);
  }, 120_000);
});
