// The one shape of every /api refusal (ApiError in the protocol): a sentence that says what to
// do, with Retry-After for 429 and the field at fault for 400. Also the JSON body parser every
// route uses: the body is parsed with the route's zod schema where it arrives.
import { formatZodIssues, type ApiError } from '@overlay-companion/protocol';
import type { Context } from 'hono';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import type { z } from 'zod';

export function apiError(
  c: Context,
  status: ContentfulStatusCode,
  error: string,
  extra: { retryAfterMs?: number; field?: string } = {},
): Response {
  const body: ApiError = { error };
  if (extra.retryAfterMs !== undefined) {
    body.retry_after_ms = Math.max(0, Math.ceil(extra.retryAfterMs));
    c.header('Retry-After', String(Math.max(1, Math.ceil(extra.retryAfterMs / 1000))));
  }
  if (extra.field !== undefined) body.field = extra.field;
  c.header('Cache-Control', 'no-store');
  return c.json(body, status);
}

export type Parsed<T> = { ok: true; value: T } | { ok: false; response: Response };

/** Reads the JSON body and parses it with `schema`; a bad body answers 400 naming the field. */
export async function parseJsonBody<S extends z.ZodType>(
  c: Context,
  schema: S,
): Promise<Parsed<z.output<S>>> {
  let raw: unknown;
  try {
    const text = await c.req.text();
    raw = text.trim() === '' ? {} : JSON.parse(text);
  } catch {
    return { ok: false, response: apiError(c, 400, 'The request body is not valid JSON.') };
  }
  const parsed = schema.safeParse(raw);
  if (!parsed.success) {
    const field = parsed.error.issues[0]?.path.map(String).join('.');
    return {
      ok: false,
      response: apiError(c, 400, `Invalid request: ${formatZodIssues(parsed.error)}.`, {
        ...(field ? { field } : {}),
      }),
    };
  }
  return { ok: true, value: parsed.data };
}
