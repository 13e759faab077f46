// The audit_log table: one row per tool call, mode change, approval, Stop, sign-in and token or
// people change, with an optional screenshot kept only when the person asked for that. append()
// runs on every MCP tool call, so it is exactly one INSERT (no lookups, no transaction), and
// appendMany() writes a burst of them as one multi-row INSERT; query()
// pages newest first by id (keyset: id < before), which stays fast however deep the page.
import { CompiledQuery, type Selectable } from 'kysely';
import type { AuditKind } from '@overlay-companion/protocol';
import type { RepoContext } from './context.js';
import type { AuditLogTable } from './schema.js';
import type { AuditFilter, AuditRecord, AuditRepo, NewAuditEntry } from './types.js';

/** Every column but the screenshot bytes, which only screenshot() reads. */
const LISTED_COLUMNS = [
  'id',
  'at',
  'kind',
  'actor',
  'person_id',
  'person_name',
  'token_id',
  'token_name',
  'client_name',
  'tool',
  'summary',
  'decision',
  'approved_by',
  'outcome',
  'duration_ms',
  'detail',
  'decided_by',
  'decided_by_person_id',
  'screenshot_mime',
] as const;

type ListedRow = Pick<Selectable<AuditLogTable>, (typeof LISTED_COLUMNS)[number]>;

function toRecord(row: ListedRow): AuditRecord {
  // kind/actor/decision are written only from NewAuditEntry's own unions.
  return {
    id: row.id,
    at: row.at,
    kind: row.kind as AuditKind,
    actor: row.actor as AuditRecord['actor'],
    personId: row.person_id,
    personName: row.person_name,
    tokenId: row.token_id,
    tokenName: row.token_name,
    clientName: row.client_name,
    tool: row.tool,
    summary: row.summary,
    decision: row.decision as AuditRecord['decision'],
    approvedBy: row.approved_by,
    outcome: row.outcome,
    durationMs: row.duration_ms,
    detail: row.detail,
    decidedBy: row.decided_by,
    decidedByPersonId: row.decided_by_person_id,
    hasScreenshot: row.screenshot_mime !== null,
  };
}

function toRow(entry: NewAuditEntry) {
  return {
    at: entry.at,
    kind: entry.kind,
    actor: entry.actor,
    person_id: entry.personId,
    person_name: entry.personName,
    token_id: entry.tokenId ?? null,
    token_name: entry.tokenName ?? null,
    client_name: entry.clientName ?? null,
    tool: entry.tool ?? null,
    summary: entry.summary ?? null,
    decision: entry.decision ?? null,
    approved_by: entry.approvedBy ?? null,
    outcome: entry.outcome ?? null,
    duration_ms: entry.durationMs ?? null,
    detail: entry.detail ?? null,
    decided_by: entry.decidedBy ?? null,
    decided_by_person_id: entry.decidedByPersonId ?? null,
    screenshot_mime: entry.screenshot?.mimeType ?? null,
    screenshot: entry.screenshot?.data ?? null,
  };
}

type AuditRow = ReturnType<typeof toRow>;
/** A row with every column, for compiling the INSERT (values are replaced at each run). */
const PLACEHOLDER_ROW: AuditRow = toRow({
  at: 0,
  kind: 'stop',
  actor: 'system',
  personId: null,
  personName: null,
});
const INSERT_COLUMNS = Object.keys(PLACEHOLDER_ROW) as (keyof AuditRow)[];
/** Batch sizes whose compiled INSERT is kept (the audit log writes at most 200 at once). */
const MAX_CACHED_INSERTS = 256;

export function auditRepo({ db }: RepoContext): AuditRepo {
  const insertsByCount = new Map<number, CompiledQuery>();
  return {
    async append(entry: NewAuditEntry): Promise<number> {
      const row = await db
        .insertInto('audit_log')
        .values(toRow(entry))
        // RETURNING works on both backends and keeps this a single statement.
        .returning('id')
        .executeTakeFirstOrThrow();
      return Number(row.id);
    },

    async appendMany(entries: readonly NewAuditEntry[]): Promise<void> {
      if (entries.length === 0) return;
      // One multi-row INSERT: on PostgreSQL one commit (one disk flush) for the whole batch.
      // Its SQL depends only on the row count, so kysely compiles it once per count and each
      // batch only fills in the parameters (row by row, in INSERT_COLUMNS order, as compiled).
      let compiled = insertsByCount.get(entries.length);
      if (compiled === undefined) {
        const placeholders = entries.map(() => PLACEHOLDER_ROW);
        compiled = db.insertInto('audit_log').values(placeholders).compile();
        if (insertsByCount.size < MAX_CACHED_INSERTS) insertsByCount.set(entries.length, compiled);
      }
      const parameters = entries.flatMap((entry) => {
        const row = toRow(entry);
        return INSERT_COLUMNS.map((column) => row[column]);
      });
      await db.executeQuery(CompiledQuery.raw(compiled.sql, parameters));
    },

    async query(filter: AuditFilter): Promise<AuditRecord[]> {
      let query = db.selectFrom('audit_log').select(LISTED_COLUMNS);
      if (filter.personId !== undefined) query = query.where('person_id', '=', filter.personId);
      if (filter.kind !== undefined) query = query.where('kind', '=', filter.kind);
      if (filter.tool !== undefined) query = query.where('tool', '=', filter.tool);
      if (filter.outcome !== undefined) query = query.where('outcome', '=', filter.outcome);
      if (filter.from !== undefined) query = query.where('at', '>=', filter.from);
      if (filter.to !== undefined) query = query.where('at', '<=', filter.to);
      if (filter.before !== undefined) query = query.where('id', '<', filter.before);
      const rows = await query
        .orderBy('id', 'desc')
        .limit(Math.max(1, Math.floor(filter.limit)))
        .execute();
      return rows.map(toRecord);
    },

    async screenshot(id: number): Promise<{ mimeType: string; data: Buffer } | undefined> {
      const row = await db
        .selectFrom('audit_log')
        .select(['screenshot_mime', 'screenshot'])
        .where('id', '=', id)
        .executeTakeFirst();
      if (row?.screenshot_mime == null || row.screenshot == null) return undefined;
      return { mimeType: row.screenshot_mime, data: Buffer.from(row.screenshot) };
    },

    async purgeBefore(before: number): Promise<number> {
      const result = await db.deleteFrom('audit_log').where('at', '<', before).executeTakeFirst();
      return Number(result.numDeletedRows);
    },
  };
}
