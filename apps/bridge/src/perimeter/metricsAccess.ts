// Who may read /metrics. The series say how busy the bridge is and which tools AI clients use,
// and when the desktop is in use — not for every local user to read (on a shared machine that
// is anyone with a shell). With OC_METRICS_TOKEN set, a scraper sends it as
// `Authorization: Bearer <token>` (compared in constant time). Without it, /metrics is refused
// unless the operator opts in with OC_METRICS_OPEN_LOOPBACK=1: then any process on this machine
// may scrape, but only directly — a request a reverse proxy forwarded (it carries
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
      `OC_METRICS_TOKEN is too short (${token.length} characters); use at least ${MIN_METRICS_TOKEN_LENGTH} random characters, or unset it (then /metrics is closed unless OC_METRICS_OPEN_LOOPBACK=1).`,
    );
  }
  return token;
}

/** OC_METRICS_OPEN_LOOPBACK: 1/true/yes opens /metrics to local processes, 0/false/no or unset not. */
export function parseMetricsOpenLoopback(text: string | undefined): boolean {
  const value = text?.trim().toLowerCase() ?? '';
  if (value === '' || value === '0' || value === 'false' || value === 'no') return false;
  if (value === '1' || value === 'true' || value === 'yes') return true;
  throw new Error(
    `OC_METRICS_OPEN_LOOPBACK is 1 (every process on this machine may read /metrics) or 0, got "${text}".`,
  );
}

export type MetricsRefusal = { status: 401 | 403; message: string };

/** Undefined when the request may read /metrics; otherwise the status and why. */
export function metricsRefusal(
  c: Context,
  token: string | undefined,
  openLoopback = false,
): MetricsRefusal | undefined {
  if (token !== undefined) {
    const header = c.req.header('authorization') ?? '';
    const given = /^Bearer\s+(.+)$/i.exec(header)?.[1]?.trim() ?? '';
    if (sameSecret(given, token)) return undefined;
    return {
      status: 401,
      message: 'Send the metrics token (OC_METRICS_TOKEN) as "Authorization: Bearer <token>".',
    };
  }
  if (!openLoopback) {
    return {
      status: 403,
      message:
        'Metrics need a token: set OC_METRICS_TOKEN and send it as "Authorization: Bearer <token>". To let every process on this machine read them without one, set OC_METRICS_OPEN_LOOPBACK=1.',
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
