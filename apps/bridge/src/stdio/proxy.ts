// The stdio ⇄ Streamable HTTP proxy behind `overlay-companion stdio`: every JSON-RPC message
// from the stdio client is posted to the bridge and every message from the bridge (responses,
// notifications, elicitation requests) is written back, unchanged. It is transparent on purpose:
// the bridge stays the only MCP server, so tools, resources, progress and elicitation need no
// code here. What the proxy adds is failure handling: a request the bridge cannot take (down,
// 401, unknown session) or a response stream that ends without an answer gets a JSON-RPC error
// back at once, so the client never waits on a request that will not be answered; and after a
// bridge restart the next message opens a new session by itself (bridgeSession.ts).
import type { Readable, Writable } from 'node:stream';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import type { FetchLike } from '@modelcontextprotocol/sdk/shared/transport.js';
import {
  isJSONRPCErrorResponse,
  isJSONRPCRequest,
  isJSONRPCResultResponse,
  type JSONRPCMessage,
  type RequestId,
} from '@modelcontextprotocol/sdk/types.js';
import { BridgeSession } from './bridgeSession.js';
import { BRIDGE_ERROR_CODE, explainBridgeError } from './explain.js';
import { watchResponseStreams } from './streamWatch.js';

export interface StdioProxyOptions {
  /** The bridge's MCP endpoint, e.g. http://127.0.0.1:8080/mcp. */
  url: string;
  /** Bearer token (a token from the bridge's /config page, or OC_MCP_TOKEN). */
  token: string | undefined;
  stdin?: Readable;
  stdout?: Writable;
  /** One line per problem, for the person (stderr). */
  warn: (line: string) => void;
}

export interface StdioProxy {
  /** Resolves once stdin ended and the bridge session was closed. */
  closed: Promise<void>;
  close(): Promise<void>;
}

/** How long a response stream may stay quiet after it ended before its requests are failed. */
const STREAM_END_GRACE_MS = 250;

export async function startStdioProxy(options: StdioProxyOptions): Promise<StdioProxy> {
  const stdin = options.stdin ?? process.stdin;
  const stdio = new StdioServerTransport(stdin, options.stdout ?? process.stdout);
  // Requests forwarded to the bridge and not answered yet; answering one here (error) moves
  // its id to `failed`, so a late answer from the bridge is dropped instead of duplicated.
  const pending = new Set<RequestId>();
  const failed = new Set<RequestId>();

  const fail = (id: RequestId, message: string): void => {
    if (!pending.delete(id)) return;
    failed.add(id);
    void stdio
      .send({ jsonrpc: '2.0', id, error: { code: BRIDGE_ERROR_CODE, message } })
      .catch(() => undefined);
  };

  const fetchWatched: FetchLike = watchResponseStreams(fetch, (ids) => {
    // The stream's last event is parsed by the SDK just after the bytes end; give it time.
    setTimeout(() => {
      for (const id of ids) {
        if (!pending.has(id)) continue;
        options.warn(`The bridge closed the response to request ${String(id)} without answering.`);
        fail(
          id,
          `The bridge at ${options.url} closed the connection before answering (it stopped or restarted). The action may or may not have happened; check, then retry.`,
        );
      }
    }, STREAM_END_GRACE_MS).unref();
  });

  const http = new BridgeSession({
    url: options.url,
    token: options.token,
    fetch: fetchWatched,
    onmessage: (message) => fromBridge(message),
    // Failed POSTs are answered per request below; this reports the background streams (the
    // GET stream for server-initiated messages) so the person sees why things went quiet.
    onerror: (err) => options.warn(explainBridgeError(err, options.url)),
    warn: options.warn,
  });

  function fromBridge(message: JSONRPCMessage): void {
    if (isJSONRPCResultResponse(message) || isJSONRPCErrorResponse(message)) {
      const id = message.id;
      if (id !== undefined && failed.delete(id)) return; // already answered by the proxy
      if (id !== undefined) pending.delete(id);
    }
    void stdio.send(message).catch((err: unknown) => {
      options.warn(
        `Could not write to stdout: ${err instanceof Error ? err.message : String(err)}`,
      );
    });
  }

  stdio.onmessage = (message: JSONRPCMessage) => {
    const isRequest = isJSONRPCRequest(message);
    if (isRequest) pending.add(message.id);
    http.send(message).catch((err: unknown) => {
      // onerror has already printed the explanation; the client gets it as the answer.
      if (isRequest) fail(message.id, explainBridgeError(err, options.url));
    });
  };
  stdio.onerror = (err: Error) => {
    options.warn(`Ignored a malformed message from the MCP client: ${err.message}`);
  };

  let closing: Promise<void> | undefined;
  const close = (): Promise<void> =>
    (closing ??= (async () => {
      for (const id of [...pending]) fail(id, 'The stdio proxy is shutting down.');
      if (http.sessionId !== undefined) {
        // Ends the bridge session now instead of leaving it to the idle sweep.
        await Promise.race([
          http.terminate().catch(() => undefined),
          new Promise((resolve) => setTimeout(resolve, 2000).unref()),
        ]);
      }
      await http.close();
      await stdio.close();
    })());

  const closed = new Promise<void>((resolve) => {
    const onEnd = (): void => void close().then(resolve);
    stdin.once('end', onEnd);
    stdin.once('close', onEnd);
  });

  await http.start();
  await stdio.start();
  return { closed, close };
}
