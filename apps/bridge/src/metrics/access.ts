// Who may read /metrics. The series say how busy the bridge is and which tools AI clients use —
// nothing secret, but nothing for the public either. With OC_METRICS_TOKEN set, a scraper sends
// it as `Authorization: Bearer <token>` (compared in constant time). Without it, only a process
// on this machine may scrape, and only directly: a request a reverse proxy forwarded (it carries
// X-Forwarded-For, Forwarded or X-Real-IP) comes from loopback too, but on behalf of anyone.
import { timingSafeEqual } from 'node:crypto';
import { getConnInfo } from '@hono/node-server/conninfo';
import type { Context } from 'hono';
import { isLoopbackHost } from '../auth/loopback.js';

/** Shortest OC_METRICS_TOKEN accepted: as for OC_MCP_TOKEN, enough random characters. */
export const MIN_METRICS_TOKEN_LENGTH = 16;

const FORWARDING_HEADERS = ['x-forwarded-for', 'forwarded', 'x-real-ip'];

/** OC_METRICS_TOKEN, checked; undefined when unset or empty. */
export function parseMetricsToken(text: string | undefined): string | undefined {
  const token = text?.trim();
  if (token === undefined || token === '') return undefined;
  if (token.length < MIN_METRICS_TOKEN_LENGTH) {
    throw new Error(
      `OC_METRICS_TOKEN is too short (${token.length} characters); use at least ${MIN_METRICS_TOKEN_LENGTH} random characters, or unset it to allow scrapes from this machine only.`,
    );
  }
  return token;
}

export type MetricsRefusal = { status: 401 | 403; message: string };

/** Undefined when the request may read /metrics; otherwise the status and why. */
export function metricsRefusal(c: Context, token: string | undefined): MetricsRefusal | undefined {
  if (token !== undefined) {
    const header = c.req.header('authorization') ?? '';
    const given = /^Bearer\s+(.+)$/i.exec(header)?.[1]?.trim() ?? '';
    if (sameSecret(given, token)) return undefined;
    return {
      status: 401,
      message: 'Send the metrics token (OC_METRICS_TOKEN) as "Authorization: Bearer <token>".',
    };
  }
  const forwarded = FORWARDING_HEADERS.some((name) => c.req.header(name) !== undefined);
  if (!forwarded && isLoopbackHost(peerAddress(c))) return undefined;
  return {
    status: 403,
    message:
      'Metrics are served only to this machine, directly. To scrape through a proxy or from another host, set OC_METRICS_TOKEN and send it as a bearer token.',
  };
}

function peerAddress(c: Context): string {
  try {
    return (getConnInfo(c).remote.address ?? '').replace(/^::ffff:/, '');
  } catch {
    return ''; // app.request() in tests has no socket: not loopback.
  }
}

function sameSecret(given: string, expected: string): boolean {
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  // Compared at the expected length either way, so a wrong length costs the same time.
  return a.length === b.length ? timingSafeEqual(a, b) : (timingSafeEqual(b, b), false);
}
