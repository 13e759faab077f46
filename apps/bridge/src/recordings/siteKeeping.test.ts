// Keeping recordings on a site: two bridges sharing one real PostgreSQL, each with a data dir of
// its own (skipped with the reason where there is no PostgreSQL, a failure under
// OC_REQUIRE_POSTGRES=1). Retention plans over the site's rows (the caps are the site's) but each
// bridge deletes only what it can delete completely: a recording in another bridge's data dir
// keeps its row and files until that bridge's own pass deletes both. A recording deleted through
// a bridge that cannot reach its files (its row only) loses its files at the next pass of the
// bridge that holds them, instead of at that bridge's next start — not files just written, whose
// row may be on its way.
import { existsSync } from 'node:fs';
import { mkdtemp, rm, utimes } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { RecordingWriter, recordingPaths } from '@overlay-companion/recording';
import { afterAll, describe, expect, it, test } from 'vitest';
import type { AuditInput } from '../audit/auditLog.js';
import { silentLogger } from '../logger.js';
import { openStore } from '../store/openStore.js';
import type { Store } from '../store/types.js';
import { postgresRequired, startTestPostgres } from '../store/testing/postgres.js';
import { RECORDING_RETENTION_KEY } from './recordingPolicy.js';
import { Recordings } from './recordingLifecycle.js';
import { DAY_MS } from './retention.js';
import { seedOwnerAndDesktop } from './storage/testing/spoolStore.js';
import { writeNoiseRecording } from './testing/sampleRecording.js';

const KiB = 1024;
const HOUR = 3_600_000;

const postgres = await startTestPostgres();
afterAll(async () => {
  if ('url' in postgres) await postgres.stop();
});

test('a real PostgreSQL runs the site tests (required when OC_REQUIRE_POSTGRES=1)', (ctx) => {
  if ('skip' in postgres) {
    if (postgresRequired()) throw new Error(`PostgreSQL tests cannot run: ${postgres.skip}`);
    ctx.skip(postgres.skip);
  }
});

const onDisk = (dir: string, id: string) =>
  Object.values(recordingPaths(dir, id)).every((p) => existsSync(p));
const goneFromDisk = (dir: string, id: string) =>
  Object.values(recordingPaths(dir, id)).every((p) => !existsSync(p));

interface SiteBridge {
  store: Store;
  dir: string;
  recordings: Recordings;
  audits: AuditInput[];
}

describe.skipIf(!('url' in postgres))('keeping recordings on a site of two bridges', () => {
  /** Two bridges (a store connection and a data dir each) on one fresh database. */
  async function twoBridges() {
    const databaseUrl = 'url' in postgres ? await postgres.newDatabase() : '';
    const cleanup: (() => Promise<void>)[] = [];
    const bridge = async (): Promise<SiteBridge> => {
      const dataDir = await mkdtemp(join(tmpdir(), 'oc-site-keeping-'));
      const store = await openStore({ dataDir, databaseUrl });
      const audits: AuditInput[] = [];
      const recordings = new Recordings({
        store,
        dir: join(dataDir, 'recordings'),
        logger: silentLogger(),
        masks: () => Promise.resolve([]),
        audit: (entry) => audits.push(entry),
        retention: { intervalMs: 3_600_000 },
      });
      cleanup.push(async () => {
        await recordings.close();
        await store.close();
        await rm(dataDir, { recursive: true, force: true });
      });
      return { store, dir: recordings.dir, recordings, audits };
    };
    const a = await bridge();
    const b = await bridge();
    const { owner, desktop } = await seedOwnerAndDesktop(a.store);
    /** A finished recording made on `on` (its files in that bridge's data dir). */
    const write = (on: SiteBridge, t0: number) =>
      writeNoiseRecording(on.store, on.dir, {
        desktopId: desktop.id,
        ownerId: owner.id,
        t0,
        approxBytes: 600 * KiB,
      });
    const close = async () => {
      for (const step of cleanup.reverse()) await step();
    };
    return { a, b, write, close };
  }

  const ids = async (store: Store) => (await store.recordings.list()).map((r) => r.id).sort();

  it("retention deletes what it can delete completely, never another bridge's row (whose files it cannot reach): that bridge deletes it, files and row", async () => {
    const { a, b, write, close } = await twoBridges();
    try {
      const now = Date.now();
      const oldOnA = await write(a, now - 40 * DAY_MS);
      const oldOnB = await write(b, now - 40 * DAY_MS);
      // Over the site's total cap: the oldest of the rest, B's, is to go.
      const earlierOnB = await write(b, now - 3 * HOUR);
      const laterOnA = await write(a, now - 2 * HOUR);
      const newestOnB = await write(b, now - 1 * HOUR);
      await a.store.settings.set(RECORDING_RETENTION_KEY, {
        max_age_days: 30,
        max_total_bytes: Math.floor(2.5 * laterOnA.storedBytes),
        max_desktop_bytes: null,
        min_free_bytes: 0,
      });

      await a.recordings.recover();
      // A deleted its own old one, files and row, and left B's two (past the age, over the cap).
      expect(goneFromDisk(a.dir, oldOnA.id)).toBe(true);
      expect(await ids(a.store)).toEqual(
        [oldOnB.id, earlierOnB.id, laterOnA.id, newestOnB.id].sort(),
      );
      for (const kept of [oldOnB, earlierOnB, newestOnB]) expect(onDisk(b.dir, kept.id)).toBe(true);
      expect(a.audits.map((e) => e.summary)).toEqual([
        `recording ${oldOnA.id} of desktop "Office PC"`,
      ]);

      // B's own pass deletes its two, files and rows; what is left is under the site's cap.
      await b.recordings.recover();
      expect(await ids(b.store)).toEqual([laterOnA.id, newestOnB.id].sort());
      for (const gone of [oldOnB, earlierOnB]) expect(goneFromDisk(b.dir, gone.id)).toBe(true);
      expect(onDisk(a.dir, laterOnA.id)).toBe(true);
      expect(onDisk(b.dir, newestOnB.id)).toBe(true);
      expect(b.audits.map((e) => e.detail)).toEqual([
        expect.stringMatching(/^recording deleted by retention: older than 30 days/),
        expect.stringMatching(/^recording deleted by retention: all recordings over /),
      ]);

      // Deleted through A (a person's DELETE routed there): only its row can go there; B's next
      // pass removes its files, which no row lists any more.
      const row = await a.store.recordings.byId(newestOnB.id);
      expect(row).toBeDefined();
      expect(await a.recordings.remove(row!)).toBe(true);
      expect(onDisk(b.dir, newestOnB.id)).toBe(true);
      // Its files were last written an hour ago (when it ended); a recording just starting on B,
      // whose files are written before its row, is left alone however its pass falls.
      const anHourAgo = new Date(Date.now() - HOUR);
      for (const path of Object.values(recordingPaths(b.dir, newestOnB.id)))
        await utimes(path, anHourAgo, anHourAgo);
      const starting = (await (await RecordingWriter.create({ dir: b.dir })).close()).id;
      await b.recordings.enforceRetention();
      expect(goneFromDisk(b.dir, newestOnB.id)).toBe(true);
      expect(onDisk(b.dir, starting)).toBe(true);
      expect(onDisk(a.dir, laterOnA.id)).toBe(true);
    } finally {
      await close();
    }
  });
});
