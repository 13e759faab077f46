// The Streamable HTTP transport of one MCP session, with nothing kept per request after that
// request ends. Owns the workarounds for the installed SDK's (1.32.2) per-request bookkeeping and
// `transportBacklog`, which reads that bookkeeping for tests, the soak and the bench.
//
// The SDK transport keeps three maps per POST: `_streamMapping` (stream id → where the answer
// goes), `_requestToStreamMapping` (request id → stream id) and `_requestResponseMap` (answers
// collected until every request of the POST has one). Three paths leave entries behind:
//  1. JSON-response mode (enableJsonResponse, which sessions.ts uses for most clients) resolves
//     the POST but never deletes its `_streamMapping` entry, whose resolver holds the answered
//     Response: ~50 KB per screenshot, kept until the session ends (upstream typescript-sdk
//     issue 2559, fix pending in PR 2747). Once that fix ships, the sweep below finds nothing.
//  2. A request the client cancels (notifications/cancelled, also sent by the SDK client when
//     its request timeout fires) is never answered: the POST stays open and its entries stay,
//     in both modes.
//  3. close() (DELETE, idle expiry, revoked token) drops the JSON-mode entries without answering
//     their POSTs, which then hang until the client gives up.
import type { RequestId } from '@modelcontextprotocol/sdk/types.js';
import {
  WebStandardStreamableHTTPServerTransport,
  type HandleRequestOptions,
} from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import { CancelledNotificationSchema, ErrorCode } from '@modelcontextprotocol/sdk/types.js';

/** How many entries the SDK transport holds for requests in flight (0 each when idle). */
export interface TransportBacklog {
  /** POSTs whose answer is still to go (the session's GET stream is not counted). */
  streams: number;
  /** Requests not yet answered. */
  requests: number;
  /** Answers waiting for the rest of their batch. */
  responses: number;
}

/** The SDK's private per-request maps, as the installed version names and uses them. */
interface SdkBookkeeping {
  _streamMapping: Map<string, { resolveJson?: (response: Response) => void; cleanup(): void }>;
  _requestToStreamMapping: Map<RequestId, string>;
  _requestResponseMap: Map<RequestId, unknown>;
  _standaloneSseStreamId: string;
}

/**
 * The SDK transport's maps; throws when a new SDK version renamed them, so that the tests of
 * this module fail on the upgrade instead of the workaround silently doing nothing.
 */
function bookkeeping(transport: WebStandardStreamableHTTPServerTransport): SdkBookkeeping {
  const inner = transport as unknown as Partial<SdkBookkeeping>;
  if (
    !(inner._streamMapping instanceof Map) ||
    !(inner._requestToStreamMapping instanceof Map) ||
    !(inner._requestResponseMap instanceof Map)
  ) {
    throw new Error(
      'The MCP SDK transport no longer keeps _streamMapping/_requestToStreamMapping/_requestResponseMap: check mcp/boundedTransport.ts against the installed @modelcontextprotocol/sdk (upstream issue 2559 may be fixed).',
    );
  }
  return inner as SdkBookkeeping;
}

export function transportBacklog(
  transport: WebStandardStreamableHTTPServerTransport,
): TransportBacklog {
  const maps = bookkeeping(transport);
  let streams = maps._streamMapping.size;
  if (maps._streamMapping.has(maps._standaloneSseStreamId)) streams -= 1;
  return {
    streams,
    requests: maps._requestToStreamMapping.size,
    responses: maps._requestResponseMap.size,
  };
}

/**
 * The answer that ends a cancelled request's POST. MCP asks a server not to answer a cancelled
 * request, but Streamable HTTP answers every request's POST with its response (JSON or on the
 * stream), and the sender of a cancellation ignores a late answer; an error answer is the one
 * ending every client handles. JSON-RPC has no code for "cancelled"; this is the one LSP uses.
 */
const REQUEST_CANCELLED = -32800;

export class BoundedStreamableHttpTransport extends WebStandardStreamableHTTPServerTransport {
  /** Called by the server's connect() after it set onmessage: watches for cancellations. */
  override async start(): Promise<void> {
    const deliver = this.onmessage;
    this.onmessage = (message, extra) => {
      deliver?.(message, extra);
      // Only a cancellation is parsed (every tool call passes here).
      if (!('method' in message) || message.method !== 'notifications/cancelled') return;
      const cancelled = CancelledNotificationSchema.safeParse(message);
      const id = cancelled.success ? cancelled.data.params.requestId : undefined;
      // After a macrotask: the server aborts the handler in a microtask of its own, and once it
      // has, the handler's late result is dropped instead of racing this answer.
      if (id !== undefined) setImmediate(() => this.answerCancelled(id));
    };
    await super.start();
  }

  override async handleRequest(
    request: Request,
    options?: HandleRequestOptions,
  ): Promise<Response> {
    try {
      return await super.handleRequest(request, options);
    } finally {
      this.releaseAnswered();
    }
  }

  override async close(): Promise<void> {
    // Answer every request still waiting, while the streams to answer on exist: the SDK's own
    // close() drops JSON-mode POSTs unanswered. The server aborts their handlers on close.
    const maps = bookkeeping(this);
    const waiting = [...maps._requestToStreamMapping.keys()].filter(
      (id) => !maps._requestResponseMap.has(id),
    );
    await Promise.all(
      waiting.map((id) =>
        this.answerInstead(
          id,
          ErrorCode.ConnectionClosed,
          'The MCP session ended (DELETE, idle timeout, revoked token or bridge shutdown) before this call was answered. Start a new session with initialize and call again.',
        ),
      ),
    );
    await super.close();
  }

  /**
   * Drops JSON-mode stream entries whose POST is answered: an entry still named by a pending
   * request is in flight; the SDK deletes those names when it resolves the POST (path 1).
   */
  private releaseAnswered(): void {
    const maps = bookkeeping(this);
    const inFlight = new Set(maps._requestToStreamMapping.values());
    for (const [streamId, stream] of maps._streamMapping) {
      if (stream.resolveJson !== undefined && !inFlight.has(streamId)) {
        maps._streamMapping.delete(streamId);
      }
    }
  }

  /** Ends the POST (or SSE stream) of a request the client cancelled, unless answered (path 2). */
  private answerCancelled(id: RequestId): void {
    const maps = bookkeeping(this);
    if (!maps._requestToStreamMapping.has(id) || maps._requestResponseMap.has(id)) return;
    void this.answerInstead(id, REQUEST_CANCELLED, 'The client cancelled this request.');
  }

  /** Sends an error answer through the SDK's own path, which releases the request's entries. */
  private async answerInstead(id: RequestId, code: number, message: string): Promise<void> {
    await this.send({ jsonrpc: '2.0', id, error: { code, message } }).catch((error: unknown) =>
      this.onerror?.(error instanceof Error ? error : new Error(String(error))),
    );
  }
}
