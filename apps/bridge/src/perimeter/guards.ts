// App-wide guards that run before any route, after the Host/Origin check: security headers on
// every answer (a CSP without inline script, no framing by anyone, nosniff, no referrer), body
// limits for every request — Content-Length and chunked alike — and JSON-only state-changing
// /api requests (415 otherwise, which also keeps cross-site HTML forms out). The one exception
// to both is a file upload's raw bytes (isFileUpload; CSRF is still checked on it).
import type { Context, Hono, MiddlewareHandler } from 'hono';
import { isFileUpload } from '@overlay-companion/protocol';
import { bodyLimit } from 'hono/body-limit';
import { secureHeaders } from 'hono/secure-headers';
import { apiError } from '../http/apiError.js';
import type { BridgeEnv } from '../http/env.js';

/** Largest /mcp body: set_clipboard takes 1 Mi characters, which JSON may escape to ~6 MiB. */
export const MAX_MCP_BODY_BYTES = 8 * 1024 * 1024;
/** Largest body anywhere else (sign-in, tokens, settings, layouts). */
export const MAX_API_BODY_BYTES = 64 * 1024;

export const CONTENT_SECURITY_POLICY = {
  defaultSrc: ["'self'"],
  scriptSrc: ["'self'"],
  styleSrc: ["'self'"],
  imgSrc: ["'self'", 'data:', 'blob:'],
  connectSrc: ["'self'"],
  fontSrc: ["'self'"],
  objectSrc: ["'none'"],
  baseUri: ["'none'"],
  formAction: ["'self'"],
  frameAncestors: ["'none'"],
};

/** Methods that change something: JSON-only here, CSRF-checked in signedIn.ts (this folder). */
export const STATE_CHANGING: ReadonlySet<string> = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

export function installGuards(app: Hono<BridgeEnv>, options: { https: boolean }): void {
  const headers: MiddlewareHandler<BridgeEnv> = secureHeaders({
    contentSecurityPolicy: CONTENT_SECURITY_POLICY,
    xFrameOptions: 'DENY',
    referrerPolicy: 'no-referrer',
    strictTransportSecurity: options.https ? 'max-age=15552000' : false,
    crossOriginResourcePolicy: 'same-origin',
  });
  // Every page, file and /api answer; /mcp answers are JSON-RPC for programs (no page, nothing
  // to frame or sniff), and it is the hot path of every tool call.
  app.use('*', async function pageHeaders(c: Context<BridgeEnv, string>, next) {
    return c.req.path === '/mcp' ? next() : headers(c, next);
  });
  app.use('*', limitBodies());
  app.use('/api/*', jsonOnly());
}

function limitBodies(): MiddlewareHandler<BridgeEnv> {
  const tooLarge = (limit: number): MiddlewareHandler<BridgeEnv> =>
    bodyLimit({
      maxSize: limit,
      onError: (c) =>
        c.req.path === '/mcp'
          ? c.json(
              {
                jsonrpc: '2.0',
                error: { code: -32000, message: `Request body too large (limit ${limit} bytes).` },
                id: null,
              },
              413,
            )
          : apiError(c, 413, `The request body is too large (limit ${limit} bytes).`),
    });
  const mcp = tooLarge(MAX_MCP_BODY_BYTES);
  const other = tooLarge(MAX_API_BODY_BYTES);
  return async function limitBody(c, next) {
    // A file upload is streamed to disk; its route refuses more than MAX_TRANSFER_BYTES from
    // the Content-Length and stops at the bytes it announced (files/routes.ts).
    if (isFileUpload(c.req.method, c.req.path)) return next();
    if (c.req.path !== '/mcp') return other(c, next);
    // Every tool call: a Content-Length (Node's parser holds the body to it) is checked from the
    // header alone, as bodyLimit would, without bodyLimit's first look at `body`, which turns
    // the server's light request into a web Request and stream that /mcp never reads through
    // (mcp/sessions.ts reads the body directly). Chunked bodies are counted by bodyLimit.
    const length = c.req.header('content-length');
    if (length !== undefined && c.req.header('transfer-encoding') === undefined)
      return Number.parseInt(length, 10) > MAX_MCP_BODY_BYTES ? mcp(c, next) : next();
    return mcp(c, next);
  };
}

function jsonOnly(): MiddlewareHandler<BridgeEnv> {
  return async function requireJson(c, next) {
    // A file upload carries the file's bytes (application/octet-stream, checked by its route).
    if (!STATE_CHANGING.has(c.req.method) || isFileUpload(c.req.method, c.req.path)) return next();
    const type = (c.req.header('content-type') ?? '').split(';')[0]?.trim().toLowerCase();
    // A DELETE without a body needs no type; anything carrying a body must be JSON.
    const hasBody =
      c.req.method !== 'DELETE' ||
      c.req.header('content-length') !== undefined ||
      c.req.header('transfer-encoding') !== undefined;
    if (hasBody && type !== 'application/json') {
      return apiError(c, 415, 'Send this request as JSON, with "Content-Type: application/json".');
    }
    return next();
  };
}
