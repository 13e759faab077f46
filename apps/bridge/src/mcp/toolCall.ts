// The tools/call pipeline, in the order that keeps the desktop safe: rate limit → parse args
// with the tool's zod schema (bad args never reach a viewer) → the tool's handler (policy gate
// and relay live in relayCall.ts) → check the structured result against the tool's schema.
// Every failure becomes an isError result with a kind (results.ts); nothing here throws.
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import {
  ProtocolError,
  formatZodIssues,
  needsInputPolicy,
  type ToolName,
} from '@overlay-companion/protocol';
import type { Logger } from 'pino';
import { asProtocolError, errorResult, successResult } from './results.js';
import type { BridgeTool, ToolContext } from './toolkit.js';

export async function runToolCall(
  tool: BridgeTool<ToolName> | undefined,
  name: string,
  rawArgs: unknown,
  ctx: ToolContext,
  logger: Logger,
): Promise<CallToolResult> {
  if (tool === undefined) {
    return errorResult(
      new ProtocolError(
        'invalid_parameters',
        `name: there is no tool ${JSON.stringify(name.slice(0, 64))}; call tools/list for the available tools.`,
      ),
    );
  }
  const rate = ctx.session.rateLimiter.tryTake(needsInputPolicy(tool.name));
  if (!rate.ok) {
    return errorResult(
      new ProtocolError(
        'rate_limited',
        `Too many calls (limit for ${rate.limit}). Retry in ${rate.retryAfterMs} ms.`,
        rate.retryAfterMs,
      ),
    );
  }
  const parsed = tool.definition.input.safeParse(rawArgs ?? {});
  if (!parsed.success) {
    return errorResult(
      new ProtocolError(
        'invalid_parameters',
        `invalid arguments for ${tool.name}: ${formatZodIssues(parsed.error)}.`,
      ),
    );
  }
  try {
    const reply = await tool.handle(parsed.data, ctx);
    const checked = tool.definition.result.safeParse(reply.structured);
    if (!checked.success) {
      throw new ProtocolError(
        'system_error',
        `The ${tool.name} result did not match its schema (${formatZodIssues(checked.error)}); this is a bug in the bridge or viewer.`,
      );
    }
    return successResult(checked.data, reply.text, reply.content);
  } catch (err) {
    const error = asProtocolError(err);
    if (error.kind === 'system_error') logger.warn({ err, tool: tool.name }, 'tool call failed');
    return errorResult(error);
  }
}
