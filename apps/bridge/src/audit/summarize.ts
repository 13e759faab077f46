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

/**
 * What the audit needs of a tool's definition: which arguments are the person's text, and which
 * arguments (and keys of its loose objects) it has at all.
 */
export type SummarizedTool = Pick<ToolDefinition, 'sensitiveArgs'> &
  Partial<Pick<ToolDefinition, 'input' | 'looseObjects'>>;

/** Written in place of a value the audit does not keep. */
const REDACTED = '[redacted]';
const NOT_AN_ARGUMENT = '[redacted: not an argument of this tool]';

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
  if (typeof args === 'object' && args !== null && !Array.isArray(args)) {
    const copy: Record<string, unknown> = { ...(args as Record<string, unknown>) };
    if (!keepText) redactText(copy, definition);
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

/**
 * Redacts, in the arguments as the AI sent them, everything that may be the person's text: the
 * definition's sensitive arguments (whatever their type: a call that will be refused may still
 * hold the text), and every value the tool has no place for — a misspelt `txt` beside `text`, an
 * unknown key inside a loose object, any argument of a tool that does not exist — since nothing
 * says what those carry. Their keys stay, so the log still shows what was sent.
 */
function redactText(copy: Record<string, unknown>, definition: SummarizedTool | undefined): void {
  const known = knownArguments(definition);
  for (const [field, text] of Object.entries(copy)) {
    if (known !== undefined && !known.has(field)) {
      copy[field] = definition === undefined ? REDACTED : NOT_AN_ARGUMENT;
    } else if (definition?.sensitiveArgs?.includes(field) === true) {
      copy[field] =
        typeof text === 'string' ? `[redacted: ${[...text].length} characters]` : REDACTED;
    } else {
      const looseKeys = definition?.looseObjects?.[field];
      if (looseKeys !== undefined && typeof text === 'object' && text !== null) {
        copy[field] = Object.fromEntries(
          Object.entries(text).map(([key, inner]) => [
            key,
            looseKeys.includes(key) ? inner : NOT_AN_ARGUMENT,
          ]),
        );
      }
    }
  }
}

/**
 * The top-level arguments a tool has: the keys of its object schema; none for an unknown tool;
 * undefined (all kept) for a definition that does not say (a schema that is not an object).
 */
function knownArguments(definition: SummarizedTool | undefined): Set<string> | undefined {
  if (definition === undefined) return new Set();
  const input = definition.input;
  if (input === undefined) return undefined;
  const shape = (input as { shape?: unknown }).shape;
  return typeof shape === 'object' && shape !== null ? new Set(Object.keys(shape)) : undefined;
}
