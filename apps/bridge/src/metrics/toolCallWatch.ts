// Watches one MCP session's transport for tools/call requests and their answers, and reports
// each call once: the tool, the outcome (ok, the error kind of an isError result, or "rejected"
// for a JSON-RPC error before the tool ran, "cancelled" when the client cancelled it) and how
// long the answer took. It sits on the transport, so it sees every call whatever handles it,
// and it reads the answer in the one shape results.ts gives every tool outcome.
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { ErrorKind } from '@overlay-companion/protocol';
import { z } from 'zod';
import type { ToolOutcome } from './bridgeMetrics.js';

export interface WatchedCall {
  tool: string;
  outcome: ToolOutcome;
  seconds: number;
  /** The error text the client was sent (for the session's log notifications). */
  message: string | undefined;
}

const RequestId = z.union([z.string(), z.number()]);
const ToolCallRequest = z.object({
  id: RequestId,
  method: z.literal('tools/call'),
  params: z.object({ name: z.string() }).loose(),
});
const Cancelled = z.object({
  method: z.literal('notifications/cancelled'),
  params: z.object({ requestId: RequestId }).loose(),
});
const ResultAnswer = z.object({
  id: RequestId,
  result: z
    .object({
      isError: z.boolean().optional(),
      structuredContent: z
        .object({ error: z.object({ kind: ErrorKind }).loose().optional() })
        .loose()
        .optional(),
      content: z.array(z.object({ type: z.string(), text: z.string().optional() })).optional(),
    })
    .loose(),
});
const ErrorAnswer = z.object({
  id: RequestId,
  error: z.object({ message: z.string() }).loose(),
});

/** Calls still waiting for an answer beyond this many are forgotten (oldest first). */
const MAX_OPEN_CALLS = 1000;

const key = (id: string | number): string => `${typeof id}:${id}`;

export function watchToolCalls(transport: Transport, onCall: (call: WatchedCall) => void): void {
  const open = new Map<string, { tool: string; started: number }>();
  const finish = (id: string | number, outcome: ToolOutcome, message: string | undefined) => {
    const call = open.get(key(id));
    if (call === undefined) return;
    open.delete(key(id));
    onCall({
      tool: call.tool,
      outcome,
      seconds: (performance.now() - call.started) / 1000,
      message,
    });
  };

  // The server has connected (it set onmessage); the watch wraps both directions after it.
  const deliver = transport.onmessage;
  transport.onmessage = (message, extra) => {
    const request = ToolCallRequest.safeParse(message);
    if (request.success) {
      if (open.size >= MAX_OPEN_CALLS) open.delete(open.keys().next().value ?? '');
      open.set(key(request.data.id), {
        tool: request.data.params.name.slice(0, 64),
        started: performance.now(),
      });
    } else {
      const cancelled = Cancelled.safeParse(message);
      if (cancelled.success) finish(cancelled.data.params.requestId, 'cancelled', undefined);
    }
    deliver?.(message, extra);
  };
  const send = transport.send.bind(transport);
  transport.send = (message: JSONRPCMessage, options) => {
    if (open.size > 0) observeAnswer(message);
    return send(message, options);
  };

  function observeAnswer(message: JSONRPCMessage): void {
    const result = ResultAnswer.safeParse(message);
    if (result.success) {
      const { isError, structuredContent, content } = result.data.result;
      if (isError !== true) return finish(result.data.id, 'ok', undefined);
      const text = content?.find((block) => block.type === 'text')?.text;
      finish(result.data.id, structuredContent?.error?.kind ?? 'system_error', text);
      return;
    }
    const error = ErrorAnswer.safeParse(message);
    if (error.success) finish(error.data.id, 'rejected', error.data.error.message);
  }
}
