// How a request that ran into a database outage is answered: 503 with Retry-After and words that
// say what is wrong ("the database is not answering; retry in 5 s"), never the bare 500 kept for
// bugs. On /mcp in JSON-RPC's shape, which MCP clients read; elsewhere in the API's (ApiError).
import type { ApiError } from '@overlay-companion/protocol';
import type { Context } from 'hono';

/**
 * What the bridge tells callers to wait: about one retry of the audit queue's backoff, and short
 * enough that a PostgreSQL restart (seconds) costs a client one retry or two.
 */
export const STORE_RETRY_AFTER_MS = 5_000;

/** The 503 for a request the store could not serve; `outage` says what is wrong (storeOutage). */
export function storeOutageResponse(c: Context, outage: string): Response {
  const seconds = Math.ceil(STORE_RETRY_AFTER_MS / 1000);
  const words = `${outage.charAt(0).toUpperCase()}${outage.slice(1)}; retry in ${seconds} s.`;
  c.header('Retry-After', String(seconds));
  c.header('Cache-Control', 'no-store');
  if (c.req.path === '/mcp') {
    return c.json({ jsonrpc: '2.0', error: { code: -32000, message: words }, id: null }, 503);
  }
  const body: ApiError = { error: words, retry_after_ms: STORE_RETRY_AFTER_MS };
  return c.json(body, 503);
}
