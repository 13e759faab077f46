// The audit log's write-behind on a real SQLite store: entries recorded in one burst, or over the
// few milliseconds a write waits for more (flush() does not wait), go in one statement (on PostgreSQL that is one commit instead of one per tool call), flush() waits for
// all of them, order is kept, a failing write is logged without its content and written later,
// and an entry whose text the store refuses is kept without it. Outages of a real PostgreSQL
// and a real full disk are in faults/.
import { afterEach, describe, expect, it } from 'vitest';
import { pino } from 'pino';
import { Writable } from 'node:stream';
import { AuditLog } from './auditLog.js';
import { DEFAULT_AUDIT_QUEUE } from './auditQueue.js';
import { startTestAccess, type TestAccess } from '../testing/testAccess.js';

let fixture: TestAccess | undefined;
afterEach(async () => {
  await fixture?.close();
  fixture = undefined;
});

/** Entries are timed from now: the fixture's retention purge deletes old ones while it starts. */
const BASE = Date.now();
const entry = (at: number, detail = 'd') =>
  ({
    at: BASE + at,
    kind: 'stop',
    actor: 'person',
    personId: null,
    personName: null,
    detail,
  }) as const;
const ats = (rows: Array<{ at: number }>) => rows.map((r) => r.at - BASE);

/** A fresh store whose audit writes are counted: `batches` holds each write's entry count. */
async function storeCountingWrites() {
  fixture = await startTestAccess();
  const { store } = fixture;
  const batches: number[] = [];
  const appendMany = store.audit.appendMany.bind(store.audit);
  store.audit.appendMany = (entries) => {
    batches.push(entries.length);
    return appendMany(entries);
  };
  return { store, batches };
}

describe('AuditLog', () => {
  it('writes a burst of entries in one statement, in order', async () => {
    const { store, batches } = await storeCountingWrites();
    const log = new AuditLog(store, pino({ level: 'silent' }));
    for (let i = 1; i <= 25; i++) log.record(entry(i));
    await log.flush();
    expect(batches).toEqual([25]);
    const rows = await store.audit.query({ kind: 'stop', limit: 100 });
    expect(ats(rows)).toEqual(Array.from({ length: 25 }, (_, i) => 25 - i));
  });

  it('writes a lone entry at the end of the turn that recorded it, not after a timer', async () => {
    const { store, batches } = await storeCountingWrites();
    const log = new AuditLog(store, pino({ level: 'silent' }));
    const nextTurn = () => new Promise((resolve) => setImmediate(resolve));
    log.record(entry(1));
    log.record(entry(2));
    expect(batches).toEqual([]);
    // A paced AI's next call comes a few milliseconds later: the INSERT is done before it.
    await nextTurn();
    await nextTurn();
    expect(batches).toEqual([2]);
    await log.stop();
  });

  it('gathers entries recorded over several turns into one write; flush() writes them at once', async () => {
    const { store, batches } = await storeCountingWrites();
    // A wait far longer than the test: only flush() can end it.
    const log = new AuditLog(store, pino({ level: 'silent' }), Date.now, {
      ...DEFAULT_AUDIT_QUEUE,
      gatherMs: 600_000,
    });
    const nextTurn = () => new Promise((resolve) => setImmediate(resolve));
    for (let i = 1; i <= 3; i++) {
      log.record(entry(i));
      await nextTurn();
      await nextTurn();
    }
    expect(batches).toEqual([]);
    await log.flush();
    expect(batches).toEqual([3]);
    expect(ats(await store.audit.query({ kind: 'stop', limit: 10 }))).toEqual([3, 2, 1]);
    await log.stop();
  });

  it("an entry waiting for its person's name keeps the time it was recorded, and flush() waits for it", async () => {
    const { store } = await storeCountingWrites();
    let clock = BASE + 10;
    const log = new AuditLog(store, pino({ level: 'silent' }), () => clock);
    let giveName: (name: string | null) => void = () => undefined;
    const name = new Promise<string | null>((resolve) => (giveName = resolve));
    log.recordNaming({ ...entry(0), at: undefined }, name);
    log.record(entry(20));
    clock = BASE + 30;
    const flushed = log.flush();
    setTimeout(() => giveName('Ada'), 20);
    await flushed;
    const rows = await store.audit.query({ kind: 'stop', limit: 10 });
    const byTime = rows
      .map((r) => [r.at - BASE, r.personName])
      .sort(([a], [b]) => Number(a) - Number(b));
    expect(byTime).toEqual([
      [10, 'Ada'],
      [20, null],
    ]);
    await log.stop();
  });

  it('keeps a batch the store refused and writes it, in order, once the store takes it', async () => {
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
    // A stand-in for an unreachable server (the fault tests stop a real one): pg's error code.
    const appendMany = store.audit.appendMany.bind(store.audit);
    let fail = true;
    store.audit.appendMany = (entries) =>
      fail
        ? Promise.reject(Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' }))
        : appendMany(entries);
    const log = new AuditLog(store, logger);
    log.record(entry(1, 'secret-looking detail'));
    log.record(entry(2));
    await waitFor(() => lines.includes('could not be stored'));
    expect(log.state().waiting).toBe(2);
    fail = false;
    await log.flush();
    expect(lines).not.toContain('secret-looking detail');
    const rows = await store.audit.query({ limit: 10 });
    expect(rows.map((r) => [r.kind, r.at - BASE])).toEqual([
      ['audit_outage', expect.any(Number)],
      ['stop', 2],
      ['stop', 1],
    ]);
    expect(rows[0]?.detail).toMatch(
      /^the audit could not be written from \S+ to \S+ \(the database is not answering\); 2 entries were queued and written now$/,
    );
  });

  it('keeps an entry whose text the store refuses, without that text', async () => {
    fixture = await startTestAccess();
    const { store } = fixture;
    const appendMany = store.audit.appendMany.bind(store.audit);
    // As PostgreSQL refuses a NUL character in text (22021): a query error, not an outage.
    store.audit.appendMany = (entries) =>
      entries.some((e) => e.detail?.includes('\u0000'))
        ? Promise.reject(Object.assign(new Error('invalid byte sequence'), { code: '22021' }))
        : appendMany(entries);
    const log = new AuditLog(store, pino({ level: 'silent' }));
    log.record(entry(1));
    log.record(entry(2, 'bad\u0000text'));
    log.record(entry(3));
    await log.flush();
    const rows = await store.audit.query({ limit: 10 });
    expect(rows.map((r) => [r.at - BASE, r.detail])).toEqual([
      [3, 'd'],
      [2, 'the store refused the text of this entry; kept without it'],
      [1, 'd'],
    ]);
  });
});

async function waitFor(condition: () => boolean): Promise<void> {
  const deadline = Date.now() + 5_000;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
