// How a tool call's arguments appear in the audit log: compact JSON, bounded in length, with what
// the person typed or put on the clipboard redacted unless they chose to keep it (Settings →
// "Keep typed text and clipboard contents in the audit log"). Keys are listed so the redacted
// text's length and shape stay visible without its content. The AI's `intent` is its own words,
// not the person's data: never redacted, and once the arguments parsed it moves from the summary
// to the entry's detail line (detailWithIntent), where the action log reads it.

/** Longest summary kept; a 5,000-item batch_overlay is cut, with a note of how much. */
export const MAX_SUMMARY_CHARS = 1000;

/** Argument fields that carry what the person (or the AI for them) typed or copied. */
const TEXT_FIELDS: ReadonlyMap<string, readonly string[]> = new Map([
  ['type_text', ['text']],
  ['set_clipboard', ['text']],
]);

/**
 * `intentInDetail`: the call's parsed intent is kept in the detail line, so the summary leaves
 * the `intent` argument out (arguments that did not parse keep it, as the AI sent it).
 */
export function summarizeArgs(
  tool: string,
  args: unknown,
  keepText: boolean,
  intentInDetail = false,
): string {
  let value = args;
  // A Map, not an object: the tool name comes from the AI, and "toString" must find nothing.
  const fields = keepText ? undefined : TEXT_FIELDS.get(tool);
  if ((fields !== undefined || intentInDetail) && typeof args === 'object' && args !== null) {
    const copy: Record<string, unknown> = { ...(args as Record<string, unknown>) };
    for (const field of fields ?? []) {
      const text = copy[field];
      if (typeof text === 'string') copy[field] = `[redacted: ${[...text].length} characters]`;
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
