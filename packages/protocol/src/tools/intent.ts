// The AI's intent: the optional `intent` argument of every input tool and request_annotation —
// one short sentence in the AI's own words saying why it wants this action. The person reads it
// in the approval panel and the action log; the audit keeps it in the entry's detail line (it is
// the AI's words, not the person's data, so it is never redacted). Defined once here; each tool's
// input schema takes `intent: Intent` and its description ends with INTENT_NOTE.
import { z } from 'zod';
import { plainText } from './textArgs.js';

/** Longest intent, in UTF-16 code units after trimming. */
export const MAX_INTENT_CHARS = 200;

/**
 * Characters an intent may not hold: C0 and C1 controls, DEL, and the bidirectional overrides and
 * isolates that would let a sentence read differently on screen from what it says.
 */
// eslint-disable-next-line no-control-regex -- finding control characters is the point.
const FORBIDDEN = /[\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/u;

export const Intent = plainText(
  z
    .string()
    .trim()
    .min(1)
    .max(MAX_INTENT_CHARS)
    .superRefine((text, ctx) => {
      const found = FORBIDDEN.exec(text);
      if (found !== null) {
        const hex = found[0].charCodeAt(0).toString(16).toUpperCase().padStart(4, '0');
        ctx.addIssue({
          code: 'custom',
          message: `contains control character U+${hex} at index ${found.index}; write one plain sentence`,
        });
      }
    })
    .optional()
    .describe(
      `Why you want this action, in one short sentence (1..${MAX_INTENT_CHARS} characters, plain text), e.g. "Open the File menu to save the report". The person reads it when asked to approve and in their action log.`,
    ),
  "the AI's own reason, shown to the person and kept on purpose",
);

/** The intent in a tool's parsed arguments, when the tool takes one and the AI gave it. */
export function intentOfArgs(args: unknown): string | undefined {
  if (typeof args !== 'object' || args === null || !Object.hasOwn(args, 'intent')) return undefined;
  const intent: unknown = (args as { intent?: unknown }).intent;
  return typeof intent === 'string' ? intent : undefined;
}

/** Ends the description of every tool that takes `intent`. */
export const INTENT_NOTE = 'Say why in `intent`: the person sees it when asked to approve.';

/**
 * The audit entry's detail keeps the intent on its own last line after this prefix (an intent
 * holds no line breaks, so the line is unambiguous); intentOfDetail reads it back for the log.
 */
const DETAIL_PREFIX = 'intent: ';

/** The audit detail for a call: its other detail (e.g. the desktop), then the intent line. */
export function detailWithIntent(detail: string | null, intent: string | undefined): string | null {
  if (intent === undefined) return detail;
  const line = `${DETAIL_PREFIX}${intent}`;
  return detail === null ? line : `${detail}\n${line}`;
}

/** The intent an audit detail line holds (detailWithIntent), if any. */
export function intentOfDetail(detail: string | null): string | undefined {
  if (detail === null) return undefined;
  const last = detail.slice(detail.lastIndexOf('\n') + 1);
  return last.startsWith(DETAIL_PREFIX) ? last.slice(DETAIL_PREFIX.length) : undefined;
}
