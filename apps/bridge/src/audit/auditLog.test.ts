// The audit log's write-behind on a real SQLite store: entries recorded in one burst go in one
// statement (on PostgreSQL that is one commit instead of one per tool call), flush() waits for
// all of them, order is kept, and a failing write is logged without its content and loses only
// that batch.
import { afterEach, describe, expect, it } from 'vitest';
import { pino } from 'pino';
import { Writable } from 'node:stream';
import { AuditLog } from './auditLog.js';
import { startTestAccess, type TestAccess } from '../testing/testAccess.js';

let fixture: TestAccess | undefined;
afterEach(async () => {
  await fixture?.close();
  fixture = undefined;
});

const entry = (at: number, detail = 'd') =>
  ({ at, kind: 'stop', actor: 'person', personId: null, personName: null, detail }) as const;

describe('AuditLog', () => {
  it('writes a burst of entries in one statement, in order', async () => {
    fixture = await startTestAccess();
    const { store } = fixture;
    const batches: number[] = [];
    const appendMany = store.audit.appendMany.bind(store.audit);
    store.audit.appendMany = (entries) => {
      batches.push(entries.length);
      return appendMany(entries);
    };
    const log = new AuditLog(store, pino({ level: 'silent' }));
    for (let i = 1; i <= 25; i++) log.record(entry(i));
    await log.flush();
    expect(batches).toEqual([25]);
    const rows = await store.audit.query({ kind: 'stop', limit: 100 });
    expect(rows.map((r) => r.at)).toEqual(Array.from({ length: 25 }, (_, i) => 25 - i));
  });

  it('logs a failed batch without its content and keeps writing later ones', async () => {
    fixture = await startTestAccess();
    const { store } = fixture;
    let lines = '';
    const logger = pino(
      { level: 'info' },
      new Writable({
        write(chunk: Buffer, _encoding, done) {
          lines += chunk.toString();
          done();
        },
      }),
    );
    const appendMany = store.audit.appendMany.bind(store.audit);
    let fail = true;
    store.audit.appendMany = (entries) =>
      fail ? Promise.reject(new Error('disk full')) : appendMany(entries);
    const log = new AuditLog(store, logger);
    log.record(entry(1, 'secret-looking detail'));
    await log.flush();
    fail = false;
    log.record(entry(2));
    await log.flush();
    expect(lines).toMatch(/audit entries could not be stored/);
    expect(lines).not.toContain('secret-looking detail');
    expect((await store.audit.query({ kind: 'stop', limit: 10 })).map((r) => r.at)).toEqual([2]);
  });
});
