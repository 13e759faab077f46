// Storage suite, the audit log: append round-trips every field, each filter of query(), keyset
// paging, screenshots, purgeBefore, ids never reused, and the measuring helper.
import { expect, test } from 'vitest';
import { measureAuditAppend } from '../../measure.js';
import type { AuditRecord, NewAuditEntry, Store } from '../../types.js';
import type { Backend } from '../fixture.js';

const FULL: Required<Omit<NewAuditEntry, 'screenshot'>> = {
  at: 1_000,
  kind: 'tool_call',
  actor: 'ai',
  personId: 'p_alice',
  personName: 'Alice',
  tokenId: 'tok_1',
  tokenName: 'laptop claude',
  clientName: 'claude-code',
  tool: 'click_at',
  summary: 'x=10 y=20 button=left',
  decision: 'confirm',
  approvedBy: 'Alice',
  outcome: 'ok',
  durationMs: 1234,
  detail: 'approved in the viewer',
  decidedBy: 'Alice',
  decidedByPersonId: 'p_alice',
};

/** Entries that differ in person, kind, tool, outcome and time, oldest first. */
async function seed(store: Store): Promise<number[]> {
  const entries: NewAuditEntry[] = [
    { ...FULL, at: 100, personId: 'p_a', tool: 'click_at', outcome: 'ok' },
    { ...FULL, at: 200, personId: 'p_b', tool: 'type_text', outcome: 'permission_denied' },
    { ...FULL, at: 300, personId: 'p_a', kind: 'mode_change', tool: null, outcome: null },
    { ...FULL, at: 400, personId: 'p_a', tool: 'type_text', outcome: 'ok' },
    { at: 500, kind: 'sign_in', actor: 'person', personId: 'p_b', personName: 'B' },
    { at: 600, kind: 'sign_in_failed', actor: 'system', personId: null, personName: null },
  ];
  const ids: number[] = [];
  for (const entry of entries) ids.push(await store.audit.append(entry));
  return ids;
}

const ats = (records: AuditRecord[]) => records.map((r) => r.at);

export function auditSuite(backend: Backend): void {
  test('appendMany writes a batch in order, screenshots included, and nothing for an empty one', async () => {
    const { store } = await backend.fresh();
    await store.audit.appendMany([]);
    const image = { mimeType: 'image/png', data: Buffer.from([1, 2, 3]) };
    await store.audit.appendMany([
      { ...FULL, at: 1 },
      { ...FULL, at: 2, tool: 'take_screenshot', screenshot: image },
      { at: 3, kind: 'stop', actor: 'person', personId: null, personName: null },
    ]);
    const rows = await store.audit.query({ limit: 10 });
    expect(ats(rows)).toEqual([3, 2, 1]);
    expect(rows[1]).toMatchObject({ tool: 'take_screenshot', hasScreenshot: true });
    expect(await store.audit.screenshot(rows[1]?.id ?? 0)).toEqual(image);
  });

  test('append returns increasing numeric ids; every field reads back', async () => {
    const { store } = await backend.fresh();
    const first = await store.audit.append(FULL);
    const second = await store.audit.append({
      at: 2_000,
      kind: 'stop',
      actor: 'person',
      personId: null,
      personName: null,
    });
    expect(typeof first).toBe('number');
    expect(second).toBeGreaterThan(first);
    expect(await store.audit.query({ limit: 10 })).toEqual([
      {
        id: second,
        at: 2_000,
        kind: 'stop',
        actor: 'person',
        personId: null,
        personName: null,
        tokenId: null,
        tokenName: null,
        clientName: null,
        tool: null,
        summary: null,
        decision: null,
        approvedBy: null,
        outcome: null,
        durationMs: null,
        detail: null,
        decidedBy: null,
        decidedByPersonId: null,
        hasScreenshot: false,
      },
      { ...FULL, id: first, hasScreenshot: false },
    ]);
  });

  test('query filters by person, kind, tool, outcome and time (from/to inclusive)', async () => {
    const { store } = await backend.fresh();
    await seed(store);
    const q = (filter: Partial<Parameters<Store['audit']['query']>[0]>) =>
      store.audit.query({ limit: 100, ...filter }).then(ats);
    expect(await q({})).toEqual([600, 500, 400, 300, 200, 100]);
    expect(await q({ personId: 'p_a' })).toEqual([400, 300, 100]);
    expect(await q({ kind: 'tool_call' })).toEqual([400, 200, 100]);
    expect(await q({ kind: 'sign_in' })).toEqual([500]);
    expect(await q({ tool: 'type_text' })).toEqual([400, 200]);
    expect(await q({ outcome: 'permission_denied' })).toEqual([200]);
    expect(await q({ from: 300 })).toEqual([600, 500, 400, 300]);
    expect(await q({ to: 300 })).toEqual([300, 200, 100]);
    expect(await q({ from: 200, to: 400 })).toEqual([400, 300, 200]);
    expect(
      await q({ personId: 'p_a', kind: 'tool_call', tool: 'type_text', outcome: 'ok' }),
    ).toEqual([400]);
    expect(await q({ personId: 'p_nobody' })).toEqual([]);
    expect(await q({ limit: 2 })).toEqual([600, 500]);
  });

  test('keyset paging (id < before, newest first) visits every entry once', async () => {
    const { store } = await backend.fresh();
    const ids: number[] = [];
    for (let i = 0; i < 25; i += 1) ids.push(await store.audit.append({ ...FULL, at: i }));
    const seen: number[] = [];
    const pageSizes: number[] = [];
    let before: number | undefined;
    for (;;) {
      const page = await store.audit.query({ limit: 10, before });
      if (page.length === 0) break;
      pageSizes.push(page.length);
      seen.push(...page.map((r) => r.id));
      before = page.at(-1)?.id;
    }
    expect(pageSizes).toEqual([10, 10, 5]);
    expect(seen).toEqual([...ids].reverse());
    // A filter and a cursor together: the person's entries older than the cursor.
    const cursor = ids[10];
    const older = await store.audit.query({ personId: 'p_alice', before: cursor, limit: 100 });
    expect(older.map((r) => r.id)).toEqual(ids.slice(0, 10).reverse());
  });

  test('screenshots are kept with their entry and only read by screenshot()', async () => {
    const { store } = await backend.fresh();
    const png = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 1, 2, 255]);
    const withShot = await store.audit.append({
      ...FULL,
      screenshot: { mimeType: 'image/png', data: png },
    });
    const without = await store.audit.append({ ...FULL, screenshot: null });
    const listed = await store.audit.query({ limit: 10 });
    expect(listed.map((r) => [r.id, r.hasScreenshot])).toEqual([
      [without, false],
      [withShot, true],
    ]);
    expect(listed[1]).not.toHaveProperty('screenshot');
    const shot = await store.audit.screenshot(withShot);
    expect(shot?.mimeType).toBe('image/png');
    expect(Buffer.isBuffer(shot?.data)).toBe(true);
    expect(shot?.data.equals(png)).toBe(true);
    expect(await store.audit.screenshot(without)).toBeUndefined();
    expect(await store.audit.screenshot(999_999)).toBeUndefined();
  });

  test('purgeBefore deletes older entries only; ids are never reused', async () => {
    const { store } = await backend.fresh();
    const ids = await seed(store);
    expect(await store.audit.purgeBefore(300)).toBe(2);
    expect(ats(await store.audit.query({ limit: 100 }))).toEqual([600, 500, 400, 300]);
    expect(await store.audit.purgeBefore(300)).toBe(0);
    expect(await store.audit.purgeBefore(Number.MAX_SAFE_INTEGER)).toBe(4);
    const next = await store.audit.append(FULL);
    expect(next).toBeGreaterThan(Math.max(...ids));
  });

  test('measureAuditAppend appends n entries and returns n durations in ms', async () => {
    const { store } = await backend.fresh();
    const durations = await measureAuditAppend(store, 20);
    expect(durations).toHaveLength(20);
    for (const ms of durations) expect(ms).toBeGreaterThan(0);
    const written = await store.audit.query({ tool: 'draw_overlay', limit: 100 });
    expect(written).toHaveLength(20);
  });
}
