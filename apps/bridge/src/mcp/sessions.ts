// The /mcp endpoint: MCP over Streamable HTTP. Owns the session map (one transport + McpServer
// per `mcp-session-id`), bearer authentication, binding each session to the token that created
// it, and ending sessions (DELETE, idle expiry, bridge shutdown). Which tools and resources a
// session has is the factory's business (see controlPlane.ts).
import { randomUUID } from 'node:crypto';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import type { Context, Hono } from 'hono';
import type { Logger } from 'pino';
import type { McpAuthenticator, McpPrincipal } from '../auth/mcpAuth.js';

/** Largest POST body: set_clipboard takes 1 Mi characters, which JSON may escape to ~6 MiB. */
export const MAX_MCP_BODY_BYTES = 8 * 1024 * 1024;
/** A session with no request for this long is ended (clients that never send DELETE). */
export const SESSION_IDLE_MS = 60 * 60 * 1000;

export interface SessionHandle {
  server: McpServer;
  /** Releases what the session holds (timers, subscriptions); called once when it ends. */
  dispose(): void;
}

export type SessionFactory = (info: {
  sessionId: string;
  principal: McpPrincipal;
}) => SessionHandle;

interface Session {
  id: string;
  tokenId: string;
  transport: WebStandardStreamableHTTPServerTransport;
  handle: SessionHandle;
  lastSeen: number;
}

export interface McpSessionsOptions {
  auth: McpAuthenticator;
  createSession: SessionFactory;
  logger: Logger;
  idleMs?: number;
}

/**
 * Whether a session's POSTs are answered with an SSE stream (true) or one JSON body (false).
 * The bridge sends nothing on a request's stream but its response, except elicitation requests
 * for approvals in headless sessions (approvals.ts) — and it only elicits from clients that
 * declared the capability at initialize. For every other client a single JSON body carries the
 * same answer with less work on both ends (no stream to open, parse and close per call); the
 * SDK's JSON mode would drop a request-related message, which is why elicitation keeps SSE.
 * Server-initiated notifications (resource updates) use the GET stream in both modes.
 */
export function answersInSse(initialize: unknown): boolean {
  if (typeof initialize !== 'object' || initialize === null) return true;
  const params = (initialize as { params?: { capabilities?: Record<string, unknown> } }).params;
  const capabilities = params?.capabilities;
  return capabilities?.elicitation !== undefined;
}

function rpcError(c: Context, status: 400 | 401 | 404 | 413, code: number, message: string) {
  return c.json({ jsonrpc: '2.0', error: { code, message }, id: null }, status);
}

export class McpSessions {
  private readonly sessions = new Map<string, Session>();
  private readonly sweeper: NodeJS.Timeout;

  constructor(private readonly options: McpSessionsOptions) {
    const idleMs = options.idleMs ?? SESSION_IDLE_MS;
    this.sweeper = setInterval(() => this.sweep(idleMs), Math.min(idleMs, 60_000));
    this.sweeper.unref();
  }

  get size(): number {
    return this.sessions.size;
  }

  /** Adds `ALL /mcp` to `app`. Host/Origin are guarded by middleware mounted before this. */
  mount(app: Hono): void {
    app.all('/mcp', (c) => this.handle(c));
  }

  private async handle(c: Context): Promise<Response> {
    const principal = this.options.auth.authenticate(c.req.header('authorization'));
    if (principal === undefined) {
      c.header('WWW-Authenticate', 'Bearer realm="overlay-companion"');
      return rpcError(
        c,
        401,
        -32001,
        'Missing or wrong bearer token. Send "Authorization: Bearer <token>" with the token the bridge printed at start (stored in its data dir as mcp-token, or set by OC_MCP_TOKEN).',
      );
    }

    const sessionId = c.req.header('mcp-session-id');
    if (sessionId !== undefined) {
      const session = this.sessions.get(sessionId);
      // A session used with another token answers exactly like an unknown one: it does not
      // exist for that caller.
      if (session === undefined || session.tokenId !== principal.tokenId) {
        return rpcError(
          c,
          404,
          -32001,
          'Session not found: it ended (DELETE, idle timeout or bridge restart) or belongs to another token. Start a new session by sending initialize without an mcp-session-id header.',
        );
      }
      session.lastSeen = Date.now();
      return session.transport.handleRequest(c.req.raw);
    }

    if (c.req.method !== 'POST') {
      return rpcError(
        c,
        400,
        -32000,
        'Missing mcp-session-id header. Start a session with a POST of initialize first.',
      );
    }
    const length = Number(c.req.header('content-length') ?? '0');
    if (length > MAX_MCP_BODY_BYTES) {
      return rpcError(
        c,
        413,
        -32000,
        `Request body too large (limit ${MAX_MCP_BODY_BYTES} bytes).`,
      );
    }
    let body: unknown;
    try {
      body = await c.req.json();
    } catch {
      return rpcError(c, 400, -32700, 'Parse error: the request body is not valid JSON.');
    }
    const messages = Array.isArray(body) ? (body as unknown[]) : [body];
    const initialize = messages.find((m) => isInitializeRequest(m));
    if (initialize === undefined) {
      return rpcError(
        c,
        400,
        -32000,
        'Missing mcp-session-id header. Start a session with an initialize request first.',
      );
    }
    return this.open(principal, c.req.raw, body, answersInSse(initialize));
  }

  private async open(
    principal: McpPrincipal,
    request: Request,
    body: unknown,
    sse: boolean,
  ): Promise<Response> {
    const id = randomUUID();
    const handle = this.options.createSession({ sessionId: id, principal });
    const transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: () => id,
      maxRequestBodySize: MAX_MCP_BODY_BYTES,
      enableJsonResponse: !sse,
      onsessioninitialized: (sessionId) => {
        this.sessions.set(sessionId, {
          id: sessionId,
          tokenId: principal.tokenId,
          transport,
          handle,
          lastSeen: Date.now(),
        });
        this.options.logger.info({ sessionId, tokenId: principal.tokenId }, 'MCP session opened');
      },
      onsessionclosed: (sessionId) => this.end(sessionId, 'closed by client'),
    });
    // Any close (DELETE, shutdown, transport error) ends the session exactly once.
    transport.onclose = () => this.end(id, 'transport closed');
    await handle.server.connect(transport);
    const response = await transport.handleRequest(request, { parsedBody: body });
    if (!this.sessions.has(id)) {
      // initialize failed (e.g. malformed): nothing to keep.
      handle.dispose();
      await handle.server.close().catch(() => undefined);
    }
    return response;
  }

  private end(sessionId: string, reason: string): void {
    const session = this.sessions.get(sessionId);
    if (session === undefined) return;
    this.sessions.delete(sessionId);
    this.options.logger.info({ sessionId, reason }, 'MCP session ended');
    session.handle.dispose();
    void session.handle.server.close().catch(() => undefined);
  }

  private sweep(idleMs: number): void {
    const now = Date.now();
    for (const session of [...this.sessions.values()]) {
      if (now - session.lastSeen > idleMs) this.end(session.id, 'idle');
    }
  }

  /** Ends every session (bridge shutdown). */
  async close(): Promise<void> {
    clearInterval(this.sweeper);
    const all = [...this.sessions.values()];
    for (const session of all) this.end(session.id, 'bridge shutting down');
    await Promise.all(all.map((s) => s.transport.close().catch(() => undefined)));
  }
}
