// DNS-rebinding guard: the Host and Origin of every request (and of every WebSocket upgrade)
// must name this bridge. A web page on another site that resolves its own name
// to 127.0.0.1 still sends its own Host/Origin, so it is refused here before any auth runs.
// The MCP SDK's built-in allowedHosts/allowedOrigins are deprecated; this replaces them.
import { OVERLAYS_SOCKET_PATH } from '@overlay-companion/protocol';
import type { MiddlewareHandler } from 'hono';
import { hostForUrl, isLoopbackHost } from '../auth/loopback.js';
import type { UpgradeGuard } from '../http/upgradeRouter.js';

export interface BoundAddress {
  host: string;
  port: number;
}

export interface HostPolicyOptions {
  /** Where the bridge listens; undefined until listen() has returned. */
  bound: () => BoundAddress | undefined;
  /** OC_PUBLIC_URL: the address people use when the bridge sits behind a proxy. */
  publicUrl?: string | undefined;
}

export type HostCheck = { ok: true } | { ok: false; status: 403 | 503; message: string };

/** The Host header values this bridge answers to, lower case (`host:port`). */
export function allowedHosts(bound: BoundAddress, publicUrl?: string): Set<string> {
  const hosts = new Set<string>();
  const add = (host: string, port: number): void => {
    hosts.add(`${hostForUrl(host)}:${port}`.toLowerCase());
    // Clients omit the port when it is the scheme's default.
    if (port === 80) hosts.add(hostForUrl(host).toLowerCase());
  };
  add(bound.host, bound.port);
  if (isLoopbackHost(bound.host)) {
    for (const name of ['localhost', '127.0.0.1', '::1']) add(name, bound.port);
  }
  if (publicUrl !== undefined && publicUrl !== '') hosts.add(new URL(publicUrl).host.toLowerCase());
  return hosts;
}

/** Checks one request's Host and Origin headers. Pure, so the upgrade path can share it. */
export function checkHostAndOrigin(
  options: HostPolicyOptions,
  host: string | undefined,
  origin: string | undefined,
): HostCheck {
  const bound = options.bound();
  if (bound === undefined) {
    return { ok: false, status: 503, message: 'The bridge is still starting; retry in a moment.' };
  }
  const allowed = allowedHosts(bound, options.publicUrl);
  const hint = `This bridge answers to ${[...allowed].join(', ')}. If you reach it through a proxy or another name, set OC_PUBLIC_URL to that address.`;
  if (host === undefined || !allowed.has(host.trim().toLowerCase())) {
    return {
      ok: false,
      status: 403,
      message: `Forbidden Host header "${host ?? ''}" (DNS rebinding protection). ${hint}`,
    };
  }
  // Non-browser MCP clients send no Origin; browsers always do on cross-origin requests.
  if (origin !== undefined && !originAllowed(origin, allowed)) {
    return {
      ok: false,
      status: 403,
      message: `Forbidden Origin "${origin}": requests from other web sites are refused. ${hint}`,
    };
  }
  return { ok: true };
}

function originAllowed(origin: string, allowed: Set<string>): boolean {
  let url: URL;
  try {
    url = new URL(origin);
  } catch {
    return false; // includes the opaque origin "null"
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return false;
  return allowed.has(url.host.toLowerCase());
}

/**
 * Hono middleware refusing foreign Host/Origin with 403. `jsonRpc` answers in the JSON-RPC error
 * shape MCP clients expect — for every path (true) or for the paths it accepts — and otherwise
 * `{ error }`. A predicate lets one middleware guard the whole app, so no request is checked
 * twice just to pick the answer's shape.
 */
export function hostOriginGuard(
  options: HostPolicyOptions & { jsonRpc?: boolean | ((path: string) => boolean) },
): MiddlewareHandler {
  const { jsonRpc } = options;
  return async function hostOriginGuard(c, next) {
    const check = checkHostAndOrigin(options, c.req.header('host'), c.req.header('origin'));
    if (check.ok) return next();
    if (jsonRpc === true || (typeof jsonRpc === 'function' && jsonRpc(c.req.path))) {
      return c.json(
        { jsonrpc: '2.0', error: { code: -32000, message: check.message }, id: null },
        check.status,
      );
    }
    return c.json({ error: check.message }, check.status);
  };
}

/**
 * The same check for WebSocket upgrades (every path: the viewer, the overlay feed, the tunnel).
 * Browsers always send Origin on a WebSocket, so one without it is not a page of ours — except a
 * program reading the overlay feed with an API token in Authorization, a header no page can put
 * on a WebSocket (that endpoint checks the token); its Host is still checked.
 */
export function upgradeHostOriginGuard(options: HostPolicyOptions): UpgradeGuard {
  return function upgradeHostOriginGuard(request, path) {
    const origin = request.headers.origin;
    const program = path === OVERLAYS_SOCKET_PATH && request.headers.authorization !== undefined;
    if (origin === undefined && !program) {
      return {
        status: 403,
        message: 'WebSocket upgrades must carry an Origin header naming this bridge.',
      };
    }
    const check = checkHostAndOrigin(options, request.headers.host, origin);
    return check.ok ? undefined : check;
  };
}
