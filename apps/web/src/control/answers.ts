// What the viewer sends back for a call: its own result checked against the schema the bridge
// will apply (a viewer bug is reported as such, not passed on), and tool_error answers with texts
// kept within the protocol's length (a hint for empty ones) and a refusal's retry time.
import {
  ERROR_HINTS,
  MAX_ERROR_MESSAGE_LENGTH,
  ProtocolError,
  toolDefinitions,
  type AskEnding,
  type ErrorKind,
  type TypedToolCall,
  type ViewerToBridge,
} from '@overlay-companion/protocol';
import type { AnyViewerResult } from './dispatch.js';
import { CapturedScreenshot } from './screen/capturedScreenshot.js';

export function errorMessage(kind: ErrorKind, text: string): string {
  const message = text.trim() === '' ? ERROR_HINTS[kind] : text;
  return message.slice(0, MAX_ERROR_MESSAGE_LENGTH);
}

/** The tool_error for call `id`. */
export function toolError(
  id: string,
  kind: ErrorKind,
  message: string,
  retryAfterMs?: number,
): Extract<ViewerToBridge, { type: 'tool_error' }> {
  return {
    type: 'tool_error',
    id,
    kind,
    message: errorMessage(kind, message),
    // A refusal that says when to try again (a teach request already open) keeps its wait.
    ...(retryAfterMs === undefined
      ? {}
      : { retry_after_ms: Math.min(3_600_000, Math.max(0, Math.round(retryAfterMs))) }),
  };
}

/** A call ended by its question to the person; how the question ended is told to the bridge. */
export class AskEndedError extends ProtocolError {
  constructor(
    kind: ErrorKind,
    message: string,
    readonly asked: AskEnding,
  ) {
    super(kind, message);
  }
}

/** The tool_error for call `id` that failed with `err` (a ProtocolError keeps its kind). */
export function errorAnswer(
  id: string,
  err: unknown,
): Extract<ViewerToBridge, { type: 'tool_error' }> {
  if (err instanceof AskEndedError)
    return { ...toolError(id, err.kind, err.message), asked: err.asked };
  if (err instanceof ProtocolError) return toolError(id, err.kind, err.message, err.retryAfterMs);
  const text = err instanceof Error ? err.message : String(err);
  return toolError(id, 'system_error', `The viewer failed: ${text}`);
}

function withoutData(result: object): object {
  // A captured screenshot holds bytes; reading its data would make the base64 it never needs.
  if (result instanceof CapturedScreenshot) return result.meta;
  const { data: _data, ...meta } = result as { data?: unknown };
  return meta;
}

/** Why `result` is not a valid answer to `call`, or undefined when it is. */
export function invalidResult(call: TypedToolCall, result: AnyViewerResult): string | undefined {
  // For a screenshot, check the metadata only: its megabytes of base64 come straight from the
  // browser's encoder.
  const checked =
    call.name === 'take_screenshot'
      ? toolDefinitions.take_screenshot.result.safeParse(withoutData(result))
      : toolDefinitions[call.name].viewerResult.safeParse(result);
  return checked.success
    ? undefined
    : `The viewer produced an invalid ${call.name} result (a viewer bug): ${checked.error.message.slice(0, 500)}`;
}
