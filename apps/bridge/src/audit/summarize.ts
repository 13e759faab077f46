// How a tool call's arguments appear in the audit log: compact JSON, bounded in length, with what
// the person typed or put on the clipboard — the arguments the tool's definition marks
// sensitiveArgs — redacted unless they chose to keep it (Settings → "Keep typed text and
// clipboard contents in the audit log"). Keys are listed so the redacted
// text's length and shape stay visible without its content. The AI's `intent` is its own words,
// not the person's data: never redacted, and once the arguments parsed it moves from the summary
// to the entry's detail line (detailWithIntent), where the action log reads it.

import { isToolName, toolDefinitions, type ToolDefinition } from '@overlay-companion/protocol';

/** Longest summary kept; a 5,000-item batch_overlay is cut, with a note of how much. */
export const MAX_SUMMARY_CHARS = 1000;

/** What the audit needs of a tool's definition: which arguments are the person's text. */
export type SummarizedTool = Pick<ToolDefinition, 'sensitiveArgs'>;

/**
 * `tool`: its definition, or its name as the AI sent it (an unknown name has nothing to redact).
 * `intentInDetail`: the call's parsed intent is kept in the detail line, so the summary leaves
 * the `intent` argument out (arguments that did not parse keep it, as the AI sent it).
 */
export function summarizeArgs(
  tool: string | SummarizedTool | undefined,
  args: unknown,
  keepText: boolean,
  intentInDetail = false,
): string {
  let value = args;
  const definition: SummarizedTool | undefined =
    typeof tool === 'string' ? (isToolName(tool) ? toolDefinitions[tool] : undefined) : tool;
  const fields = keepText ? undefined : definition?.sensitiveArgs;
  if ((fields !== undefined || intentInDetail) && typeof args === 'object' && args !== null) {
    const copy: Record<string, unknown> = { ...(args as Record<string, unknown>) };
    for (const field of fields ?? []) {
      if (!Object.hasOwn(copy, field)) continue;
      // The arguments as the AI sent them: a sensitive field that is not a string (a call that
      // will be refused) may still hold the text, so its value goes too.
      const text = copy[field];
      copy[field] =
        typeof text === 'string' ? `[redacted: ${[...text].length} characters]` : '[redacted]';
    }
    if (intentInDetail) delete copy.intent;
    value = copy;
  }
  let json: string;
  try {
    json = JSON.stringify(value ?? {}) ?? '{}';
  } catch {
    json = '"[arguments could not be written as JSON]"';
  }
  if (json.length <= MAX_SUMMARY_CHARS) return json;
  return `${json.slice(0, MAX_SUMMARY_CHARS)}… [${json.length - MAX_SUMMARY_CHARS} more characters]`;
}
