// What the viewer sends back for a call: its own result checked against the schema the bridge
// will apply (a viewer bug is reported as such, not passed on), and error texts kept within the
// protocol's length with a hint for empty ones.
import {
  ERROR_HINTS,
  MAX_ERROR_MESSAGE_LENGTH,
  toolDefinitions,
  type ErrorKind,
  type TypedToolCall,
} from '@overlay-companion/protocol';
import type { AnyViewerResult } from './dispatch.js';

export function errorMessage(kind: ErrorKind, text: string): string {
  const message = text.trim() === '' ? ERROR_HINTS[kind] : text;
  return message.slice(0, MAX_ERROR_MESSAGE_LENGTH);
}

function withoutData(result: object): object {
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
