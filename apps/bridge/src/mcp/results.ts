// How tool outcomes look to the MCP client. Success: structuredContent plus a short text (and
// any image). Failure: isError with text "<kind>: <message>" and structuredContent
// { error: { kind, message, retry_after_ms? } }, so both text-only and structured clients can
// tell invalid_parameters, permission_denied, rate_limited, ... apart.
import type { CallToolResult, ContentBlock } from '@modelcontextprotocol/sdk/types.js';
import { ProtocolError, type ErrorKind } from '@overlay-companion/protocol';
import { ViewerReportedError } from '../relay/callRelay.js';

export function successResult(
  structured: Record<string, unknown>,
  text: string,
  content: ContentBlock[] = [],
): CallToolResult {
  return { content: [...content, { type: 'text', text }], structuredContent: structured };
}

/** Kinds whose bridge messages do not already say what to do next get the generic hint. */
const HINTED: ReadonlySet<ErrorKind> = new Set(['invalid_parameters', 'system_error', 'timeout']);

export function errorResult(error: ProtocolError): CallToolResult {
  const info = error.toInfo();
  const hint =
    error instanceof ViewerReportedError || HINTED.has(info.kind) ? ` ${error.hint}` : '';
  const retry =
    info.retry_after_ms === undefined ? '' : ` (retry_after_ms: ${info.retry_after_ms})`;
  return {
    isError: true,
    content: [{ type: 'text', text: `${info.kind}: ${info.message}${retry}${hint}` }],
    structuredContent: { error: info },
  };
}

/** Any thrown value as a ProtocolError; unknown failures are the bridge's (system_error). */
export function asProtocolError(err: unknown): ProtocolError {
  if (err instanceof ProtocolError) return err;
  const message = err instanceof Error ? err.message : String(err);
  return new ProtocolError('system_error', `The bridge failed while handling the call: ${message}`);
}
