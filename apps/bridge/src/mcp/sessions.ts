// The /mcp endpoint: MCP over Streamable HTTP. Owns the session map (one transport + McpServer
// per `mcp-session-id`), bearer authentication (API tokens, apiTokens.ts), binding each session
// to the token that created it, the caps on concurrent sessions per token and per person, and
// ending sessions (DELETE, idle expiry, a revoked token, a disabled person, bridge shutdown).
// Which tools and resources a session has is the factory's business (see desktopControl.ts);
// every session gets MCP logging (clientLog.ts) and its tool calls counted (metrics/).
import { randomUUID } from 'node:crypto';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import { MAX_MCP_BODY_BYTES } from '../perimeter/guards.js';
import type { Context, Hono } from 'hono';
import type { Logger } from 'pino';
import type { BridgeEnv } from '../http/env.js';
import type { ApiTokenAuth, McpPrincipal } from '../auth/apiTokens.js';
import type { BridgeMetrics } from '../metrics/bridgeMetrics.js';
import { watchToolCalls } from '../metrics/toolCallWatch.js';
import {
  BoundedStreamableHttpTransport,
  transportBacklog,
  type TransportBacklog,
} from './boundedTransport.js';
import { ClientLog } from './clientLog.js';
import { openKey, type OpenElsewhere } from '../limits/openElsewhere.js';

/** A session with no request for this long is ended (clients that never send DELETE). */
export const SESSION_IDLE_MS = 60 * 60 * 1000;
/** Concurrent MCP sessions one token may hold, and all tokens of one person together. */
export const MAX_SESSIONS_PER_TOKEN = 32;
export const MAX_SESSIONS_PER_PERSON = 64;

export interface SessionHandle {
  server: McpServer;
  /** Releases what the session holds (timers, subscriptions); called once when it ends. */
  dispose(): void;
}

export type SessionFactory = (info: {
  sessionId: string;
  principal: McpPrincipal;
}) => Promise<SessionHandle>;

interface Session {
  id: string;
  tokenId: string;
  personId: string;
  transport: BoundedStreamableHttpTransport;
  handle: SessionHandle;
  lastSeen: number;
}

export interface McpSessionsOptions {
  auth: ApiTokenAuth;
  createSession: SessionFactory;
  logger: Logger;
  idleMs?: number;
  /** Counts each session's tool calls (/metrics). */
  metrics?: BridgeMetrics | undefined;
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

/**
 * A POST's JSON, read straight off the request (the server's direct read: no web stream, reader
 * and decoder per call, which is how the SDK reads it) and handed to the transport as
 * `parsedBody`. The size was limited before (perimeter/guards.ts). Anything that is not a POST
 * with JSON is left to the transport, whose own read then finds the body used and answers
 * exactly as it would have: its Accept and Content-Type checks come first, then "Parse error".
 */
async function bodyOf(request: Request): Promise<{ parsedBody: unknown } | undefined> {
  if (request.method !== 'POST') return undefined;
  try {
    return { parsedBody: JSON.parse(await request.text()) as unknown };
  } catch {
    return undefined;
  }
}

function rpcError(c: Context, status: 400 | 401 | 404 | 413 | 429, code: number, message: string) {
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

  /** In a site: what the other bridges hold open, counted towards the caps (site/sharedCaps.ts). */
  elsewhere: OpenElsewhere | undefined;

  /** The sessions open here, by openKey (what a site's other bridges are told). */
  openCounts(): Record<string, number> {
    const counts: Record<string, number> = {};
    for (const { tokenId, personId } of this.sessions.values())
      for (const key of [openKey.tokenSessions(tokenId), openKey.personSessions(personId)])
        counts[key] = (counts[key] ?? 0) + 1;
    return counts;
  }

  /** Adds `ALL /mcp` to `app`. Host/Origin are guarded by middleware mounted before this. */
  mount(app: Hono<BridgeEnv>): void {
    app.all('/mcp', (c) => this.handle(c));
  }

  private async handle(c: Context): Promise<Response> {
    const check = await this.options.auth.authenticate(c.req.header('authorization'));
    if (!check.ok) {
      c.header('WWW-Authenticate', 'Bearer realm="overlay-companion"');
      return rpcError(c, 401, -32001, check.message);
    }
    const principal = check.principal;

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
      return session.transport.handleRequest(c.req.raw, await bodyOf(c.req.raw));
    }

    if (c.req.method !== 'POST') {
      return rpcError(
        c,
        400,
        -32000,
        'Missing mcp-session-id header. Start a session with a POST of initialize first.',
      );
    }
    // The body's size was already limited (Content-Length and chunked alike) by the app-wide
    // guard (perimeter/guards.ts).
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
    const cap = this.capReached(principal);
    if (cap !== undefined) {
      c.header('Retry-After', String(Math.ceil(this.idleMs / 1000)));
      return rpcError(c, 429, -32000, cap);
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
    const handle = await this.options.createSession({ sessionId: id, principal });
    // The SDK's transport, minus what it keeps after a request ends (see boundedTransport.ts).
    const transport = new BoundedStreamableHttpTransport({
      sessionIdGenerator: () => id,
      maxRequestBodySize: MAX_MCP_BODY_BYTES,
      enableJsonResponse: !sse,
      onsessioninitialized: (sessionId) => {
        this.sessions.set(sessionId, {
          id: sessionId,
          tokenId: principal.tokenId,
          personId: principal.personId,
          transport,
          handle,
          lastSeen: Date.now(),
        });
        this.options.logger.info(
          { sessionId, tokenId: principal.tokenId, personId: principal.personId },
          'MCP session opened',
        );
      },
      onsessionclosed: (sessionId) => this.end(sessionId, 'closed by client'),
    });
    // Any close (DELETE, shutdown, transport error) ends the session exactly once.
    transport.onclose = () => this.end(id, 'transport closed');
    // MCP logging (logging/setLevel, notifications about this session's own calls) and the
    // tool-call series of /metrics, both fed by the calls seen on this session's transport.
    const clientLog = new ClientLog(handle.server.server, this.options.logger);
    await handle.server.connect(transport);
    watchToolCalls(transport, (call) => {
      this.options.metrics?.toolCall(call.tool, call.outcome, call.seconds);
      clientLog.toolCall(call);
    });
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

  /** What the sessions' transports still hold for requests in flight (0 each between calls). */
  backlog(): TransportBacklog {
    const total: TransportBacklog = { streams: 0, requests: 0, responses: 0 };
    for (const session of this.sessions.values()) {
      const one = transportBacklog(session.transport);
      total.streams += one.streams;
      total.requests += one.requests;
      total.responses += one.responses;
    }
    return total;
  }

  private get idleMs(): number {
    return this.options.idleMs ?? SESSION_IDLE_MS;
  }

  /** Why a new session for `principal` is refused (a cap is reached), or undefined. */
  private capReached(principal: McpPrincipal): string | undefined {
    let ofToken = this.elsewhere?.count(openKey.tokenSessions(principal.tokenId)) ?? 0;
    let ofPerson = this.elsewhere?.count(openKey.personSessions(principal.personId)) ?? 0;
    for (const session of this.sessions.values()) {
      if (session.tokenId === principal.tokenId) ofToken += 1;
      if (session.personId === principal.personId) ofPerson += 1;
    }
    const retry = `End sessions you no longer use (DELETE /mcp with their mcp-session-id) or wait until they idle out (${Math.round(this.idleMs / 60_000)} min without a request).`;
    if (ofToken >= MAX_SESSIONS_PER_TOKEN) {
      return `This token already has ${ofToken} open MCP sessions (limit ${MAX_SESSIONS_PER_TOKEN}). ${retry}`;
    }
    if (ofPerson >= MAX_SESSIONS_PER_PERSON) {
      return `This person's tokens already have ${ofPerson} open MCP sessions (limit ${MAX_SESSIONS_PER_PERSON}). ${retry}`;
    }
    return undefined;
  }

  /** Ends every session of a token (revoked) or of a person (disabled, removed). */
  endWhere(match: { tokenId?: string; personId?: string }, reason: string): number {
    let ended = 0;
    for (const session of [...this.sessions.values()]) {
      if (session.tokenId === match.tokenId || session.personId === match.personId) {
        this.end(session.id, reason);
        void session.transport.close().catch(() => undefined);
        ended += 1;
      }
    }
    return ended;
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
