// The address a request came from, for the sign-in throttle and the session record. Only a
// reverse proxy the operator named (OC_TRUSTED_PROXIES, e.g. Caddy's address) is believed about
// X-Forwarded-For; anyone else could write any address there and dodge a ban.
import { getConnInfo } from '@hono/node-server/conninfo';
import type { Context } from 'hono';

export function clientAddress(c: Context, trustedProxies: readonly string[]): string {
  let remote = 'unknown';
  try {
    remote = getConnInfo(c).remote.address ?? 'unknown';
  } catch {
    // app.request() in tests has no socket.
  }
  const normalized = remote.replace(/^::ffff:/, '');
  if (!trustedProxies.includes(normalized)) return normalized;
  // The last hop the trusted proxy appended is the client it saw.
  const forwarded = c.req.header('x-forwarded-for');
  const last = forwarded
    ?.split(',')
    .map((part) => part.trim())
    .filter(Boolean)
    .pop();
  return last === undefined || last.length > 64 ? normalized : last;
}
