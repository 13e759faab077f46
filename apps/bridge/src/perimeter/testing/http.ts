// Security test support: raw HTTP as an attacker sends it. fetch() will not set Host, send a
// chunked body on demand or show a refused WebSocket upgrade's status, so these go through
// node:http directly: any method, any headers (Host and Origin included), a whole body, a body
// streamed in chunks without Content-Length, and WebSocket upgrades whose status is reported
// whether they were accepted (101) or refused.
import { request, type IncomingHttpHeaders } from 'node:http';
import { INITIALIZE_REQUEST } from '../../mcp/testing/fixtures.js';

export interface RawResponse {
  status: number;
  headers: IncomingHttpHeaders;
  body: string;
}

export interface RawRequest {
  method?: string;
  headers?: Record<string, string>;
  /** Sent whole, with Content-Length. */
  body?: string | Buffer;
  /**
   * Sent as Transfer-Encoding: chunked (no Content-Length), one write per part; writing stops
   * early once the server has answered (it may refuse before reading it all).
   */
  chunked?: Iterable<string>;
}

/** One request to `path` on `baseUrl`; resolves with whatever the server answered. */
export function rawRequest(
  baseUrl: string,
  path: string,
  init: RawRequest = {},
): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    let answered = false;
    const headers = { ...init.headers };
    // node sends no Content-Length for a DELETE body unless told, and the server would then read
    // the body as the start of another request.
    if (
      init.body !== undefined &&
      !Object.keys(headers).some((h) => h.toLowerCase() === 'content-length')
    ) {
      headers['Content-Length'] = String(Buffer.byteLength(init.body));
    }
    // A connection of its own, closed after: a refused upload may still be writing when the
    // answer arrives, and a pooled socket would go back to the pool mid-write.
    const req = request(new URL(path, baseUrl), {
      method: init.method ?? 'GET',
      headers,
      agent: false,
    });
    req.on('response', (res) => {
      answered = true;
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
      res.on('error', reject);
    });
    // A server that refuses early may reset the connection while we still write; the answer
    // it sent first is what counts.
    req.on('error', (err) => {
      if (!answered) reject(err);
    });
    if (init.chunked !== undefined) {
      const parts = init.chunked;
      void (async () => {
        for (const part of parts) {
          if (answered || req.destroyed) break;
          if (!req.write(part)) {
            await new Promise<void>((resume) => {
              const done = (): void => {
                req.off('drain', done);
                req.off('response', done);
                req.off('close', done);
                resume();
              };
              req.once('drain', done);
              req.once('response', done);
              req.once('close', done);
            });
          }
        }
        if (!req.destroyed) req.end();
      })();
      return;
    }
    req.end(init.body);
  });
}

export interface UpgradeOptions {
  /** The Origin header; the bridge's own origin by default, null for none. */
  origin?: string | null;
  /** The Host header; node's default (the URL's host) when omitted. */
  host?: string;
  /** Sec-WebSocket-Protocol, e.g. 'guacamole' for /tunnel. */
  protocol?: string;
  headers?: Record<string, string>;
}

/**
 * Sends a WebSocket upgrade to `path` and reports its status: 101 when the bridge accepted it
 * (the socket is then dropped at once), or the refusal's status and body.
 */
export function tryUpgrade(
  baseUrl: string,
  path: string,
  options: UpgradeOptions = {},
): Promise<RawResponse> {
  const origin = options.origin === undefined ? new URL(baseUrl).origin : options.origin;
  return new Promise((resolve, reject) => {
    const req = request(new URL(path, baseUrl), {
      agent: false,
      headers: {
        Connection: 'Upgrade',
        Upgrade: 'websocket',
        'Sec-WebSocket-Version': '13',
        'Sec-WebSocket-Key': Buffer.from('0123456789abcdef').toString('base64'),
        ...(options.protocol === undefined ? {} : { 'Sec-WebSocket-Protocol': options.protocol }),
        ...(origin === null ? {} : { Origin: origin }),
        ...(options.host === undefined ? {} : { Host: options.host }),
        ...options.headers,
      },
    });
    req.on('response', (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
    });
    req.on('upgrade', (res, socket) => {
      socket.destroy();
      resolve({ status: res.statusCode ?? 101, headers: res.headers, body: '' });
    });
    req.on('error', reject);
    req.end();
  });
}

/** `/tunnel?…&ticket=…` with the screen size a browser sends. */
export function tunnelPath(ticket?: string): string {
  return `/tunnel?width=800&height=600&dpi=96${ticket === undefined ? '' : `&ticket=${encodeURIComponent(ticket)}`}`;
}

/** `/ws/viewer?ticket=…`. */
export function viewerPath(ticket?: string): string {
  return `/ws/viewer${ticket === undefined ? '' : `?ticket=${encodeURIComponent(ticket)}`}`;
}

/** Headers of a JSON request from a page of the bridge, carrying a cookie and CSRF token. */
export function browserHeaders(
  baseUrl: string,
  session: { cookie: string; csrf: string } | undefined,
  extra: Record<string, string> = {},
): Record<string, string> {
  return {
    Origin: new URL(baseUrl).origin,
    'Content-Type': 'application/json',
    ...(session === undefined ? {} : { Cookie: session.cookie, 'X-CSRF-Token': session.csrf }),
    ...extra,
  };
}

/** Headers of a JSON-RPC POST to /mcp (add Authorization). */
export const MCP_RPC_HEADERS = {
  'Content-Type': 'application/json',
  Accept: 'application/json, text/event-stream',
  'MCP-Protocol-Version': INITIALIZE_REQUEST.params.protocolVersion,
};

/** A raw MCP initialize with `token`: 200 and an mcp-session-id when the token is accepted. */
export function initializeMcp(baseUrl: string, token: string): Promise<RawResponse> {
  return rawRequest(baseUrl, '/mcp', {
    method: 'POST',
    headers: { ...MCP_RPC_HEADERS, Authorization: `Bearer ${token}` },
    body: JSON.stringify(INITIALIZE_REQUEST),
  });
}
