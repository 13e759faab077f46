// The audit log over HTTP (/api/audit): filtered pages (newest first, keyset paging), the same
// entries as a JSON-lines download, and a kept screenshot. Everyone sees their own entries;
// admins may see anyone's (or everyone's).
import { API, AuditQuery, type AuditPage } from '@overlay-companion/protocol';
import type { Context, Hono } from 'hono';
import { stream } from 'hono/streaming';
import { apiError } from '../http/apiError.js';
import type { BridgeEnv } from '../http/env.js';
import type { AuditFilter } from '../store/types.js';
import type { ApiDeps } from './deps.js';
import { auditView } from './views.js';

/** Entries per query while exporting. */
const EXPORT_BATCH = 500;

type FilterResult = { ok: true; filter: AuditFilter } | { ok: false; response: Response };

function filterFrom(c: Context<BridgeEnv>): FilterResult {
  const signedIn = c.get('signedIn');
  if (signedIn === undefined) return { ok: false, response: apiError(c, 401, 'Sign in first.') };
  const parsed = AuditQuery.safeParse(c.req.query());
  if (!parsed.success) {
    const field = parsed.error.issues[0]?.path.join('.');
    return {
      ok: false,
      response: apiError(
        c,
        400,
        `Invalid audit query: ${parsed.error.issues[0]?.message ?? 'bad value'}.`,
        {
          ...(field ? { field } : {}),
        },
      ),
    };
  }
  const q = parsed.data;
  const admin = signedIn.person.role === 'admin';
  return {
    ok: true,
    filter: {
      // Only admins choose whose entries; everyone else always gets their own.
      personId: admin ? q.person_id : signedIn.person.id,
      kind: q.kind,
      tool: q.tool,
      outcome: q.outcome,
      from: q.from,
      to: q.to,
      before: q.before,
      limit: q.limit,
    },
  };
}

export function mountAuditRoutes(app: Hono<BridgeEnv>, deps: ApiDeps): void {
  const store = deps.access.store;

  app.get(API.audit, async (c) => {
    const result = filterFrom(c);
    if (!result.ok) return result.response;
    await deps.access.audit.writtenForRead();
    const entries = await store.audit.query(result.filter);
    const last = entries.at(-1);
    const page: AuditPage = {
      entries: entries.map(auditView),
      next_before: entries.length === result.filter.limit && last !== undefined ? last.id : null,
    };
    c.header('Cache-Control', 'no-store');
    return c.json(page);
  });

  app.get(API.auditExport, (c) => {
    const result = filterFrom(c);
    if (!result.ok) return result.response;
    const filter = result.filter;
    c.header('Content-Type', 'application/x-ndjson; charset=utf-8');
    c.header('Content-Disposition', 'attachment; filename="overlay-companion-audit.jsonl"');
    c.header('Cache-Control', 'no-store');
    // Every matching entry, newest first, in batches (the page size does not apply here).
    return stream(c, async (out) => {
      await deps.access.audit.writtenForRead();
      let before = filter.before;
      for (;;) {
        const entries = await store.audit.query({ ...filter, before, limit: EXPORT_BATCH });
        for (const entry of entries) await out.write(`${JSON.stringify(auditView(entry))}\n`);
        const last = entries.at(-1);
        if (entries.length < EXPORT_BATCH || last === undefined) break;
        before = last.id;
      }
    });
  });

  app.get(`${API.audit}/:id/screenshot`, async (c) => {
    const signedIn = c.get('signedIn');
    if (signedIn === undefined) return apiError(c, 401, 'Sign in first.');
    const id = Number(c.req.param('id'));
    if (!Number.isSafeInteger(id) || id < 1)
      return apiError(c, 400, 'The entry id must be a number.');
    const [entry] = await store.audit.query({ before: id + 1, limit: 1 });
    const mine =
      entry !== undefined &&
      entry.id === id &&
      (signedIn.person.role === 'admin' || entry.personId === signedIn.person.id);
    const shot = mine ? await store.audit.screenshot(id) : undefined;
    if (shot === undefined) return apiError(c, 404, 'No screenshot kept for this entry.');
    c.header('Cache-Control', 'no-store');
    c.header('Content-Type', shot.mimeType);
    return c.body(new Uint8Array(shot.data));
  });
}
