// Migration 0010 on a real SQLite file that 0001–0009 made and used: every entry (and its
// screenshot) is kept, the two new columns sit before the screenshot (so listing never reads the
// blob's overflow pages), the audit page's indexes are back, and the id of an entry purged before
// the migration is never handed out again (the AUTOINCREMENT counter carried over).
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { Kysely, Migrator, sql } from 'kysely';
import { afterAll, expect, it } from 'vitest';
import { removeDataDir } from '../../testing/dataDirs.js';
import { DATABASE_FILE } from '../dataDir.js';
import { openStore } from '../openStore.js';
import { openSqlite } from '../sqlite.js';
import type { Store } from '../types.js';
import { migrationProvider } from './index.js';

const dirs: string[] = [];
const stores: Store[] = [];
afterAll(async () => {
  for (const store of stores) await store.close();
  for (const dir of dirs) await removeDataDir(dir);
});

it('keeps every entry, puts decided_by before the screenshot and never reuses a purged id', async () => {
  const dataDir = await mkdtemp(join(tmpdir(), 'oc-migration-0010-'));
  dirs.push(dataDir);
  const backend = await openSqlite(dataDir);
  const before = new Kysely<unknown>({ dialect: backend.dialect });
  const migrated = await new Migrator({
    db: before,
    provider: migrationProvider('sqlite'),
  }).migrateTo('0009_recording_s3_place');
  expect(migrated.error).toBeUndefined();
  const image = Buffer.alloc(20_000, 7);
  for (const at of [1, 2, 3]) {
    await sql`INSERT INTO audit_log (at, kind, actor, person_id, decision, approved_by, outcome, screenshot_mime, screenshot)
      VALUES (${at}, 'tool_call', 'ai', 'p_a', 'confirm', 'Ada', 'ok', 'image/png', ${image})`.execute(
      before,
    );
  }
  // The newest is purged: its id (3) must never come back.
  await sql`DELETE FROM audit_log WHERE at = 3`.execute(before);
  await before.destroy();

  const store = await openStore({ dataDir });
  stores.push(store);
  const kept = await store.audit.query({ limit: 10 });
  expect(kept.map((e) => [e.id, e.approvedBy, e.decidedBy, e.hasScreenshot])).toEqual([
    [2, 'Ada', null, true],
    [1, 'Ada', null, true],
  ]);
  expect((await store.audit.screenshot(1))?.data.equals(image)).toBe(true);
  const next = await store.audit.append({
    at: 4,
    kind: 'tool_call',
    actor: 'ai',
    personId: 'p_a',
    personName: 'Ada',
    decision: 'confirm',
    outcome: 'denied_by_person',
    decidedBy: 'Ada',
    decidedByPersonId: 'p_a',
  });
  expect(next).toBe(4);
  expect((await store.audit.query({ limit: 1 }))[0]).toMatchObject({
    decidedBy: 'Ada',
    decidedByPersonId: 'p_a',
  });

  const file = new Database(join(dataDir, DATABASE_FILE), { readonly: true });
  try {
    const columns = file.prepare('PRAGMA table_info(audit_log)').all() as Array<{ name: string }>;
    expect(columns.map((c) => c.name).slice(-4)).toEqual([
      'decided_by',
      'decided_by_person_id',
      'screenshot_mime',
      'screenshot',
    ]);
    const indexes = file.prepare('PRAGMA index_list(audit_log)').all() as Array<{ name: string }>;
    expect(indexes.map((i) => i.name).sort()).toEqual([
      'audit_log_at_idx',
      'audit_log_kind_idx',
      'audit_log_person_idx',
    ]);
  } finally {
    file.close();
  }
});
