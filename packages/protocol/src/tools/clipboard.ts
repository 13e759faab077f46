// Clipboard tools: get_clipboard and set_clipboard, moved through the Guacamole clipboard
// stream by the viewer. Both are governed by the mode policy: the clipboard may hold secrets.
import { z } from 'zod';
import { QUICK_CALL_MS, defineTool } from './define.js';
import { INTENT_NOTE, Intent } from './intent.js';

/** Largest clipboard text, in UTF-16 code units: 1 MiB of characters. */
export const MAX_CLIPBOARD_CHARS = 1024 * 1024;

export const GetClipboardInput = z.strictObject({ intent: Intent });
export const GetClipboardResult = z.strictObject({
  text: z
    .string()
    .max(MAX_CLIPBOARD_CHARS)
    .describe('Clipboard text of the remote desktop ("" when empty or unavailable).'),
  available: z
    .boolean()
    .describe('False when the remote clipboard holds no text or cannot be read.'),
});

export const getClipboard = defineTool({
  name: 'get_clipboard',
  title: 'Get clipboard',
  description: `Reads the remote desktop's clipboard as text, e.g. after pressing ctrl+c. Depending on the person's mode the viewer may ask them first or refuse with permission_denied. ${INTENT_NOTE} Returns the text and whether any was available.`,
  input: GetClipboardInput,
  result: GetClipboardResult,
  annotations: { readOnlyHint: true, destructiveHint: false, openWorldHint: false },
  kind: 'clipboard',
  runsIn: 'viewer',
  policyClass: 'clipboard',
  permission: 'clipboard_read',
  budgetMs: () => QUICK_CALL_MS * 2,
  preview: () => ({
    kind: 'none',
    title: 'Read the clipboard',
    facts: ["The AI will see the remote desktop's clipboard text."],
  }),
  summarize: (_a, r) =>
    r.available
      ? `The clipboard holds ${r.text.length} character(s).`
      : 'The clipboard holds no text.',
});

export const SetClipboardInput = z.strictObject({
  text: z
    .string()
    .max(MAX_CLIPBOARD_CHARS)
    .describe('Text to put on the remote clipboard, up to 1 MiB characters.'),
  intent: Intent,
});
export const SetClipboardResult = z.strictObject({
  ok: z.boolean().describe('True when the remote clipboard now holds the text.'),
});

export const setClipboard = defineTool({
  name: 'set_clipboard',
  title: 'Set clipboard',
  description: `Replaces the remote desktop's clipboard text; follow with press_key ctrl+v to paste long text faster than type_text. Depending on the person's mode the viewer may ask them first or refuse with permission_denied. ${INTENT_NOTE} Returns ok.`,
  input: SetClipboardInput,
  result: SetClipboardResult,
  annotations: {
    readOnlyHint: false,
    destructiveHint: true,
    idempotentHint: true,
    openWorldHint: false,
  },
  kind: 'clipboard',
  runsIn: 'viewer',
  policyClass: 'clipboard',
  permission: 'clipboard_write',
  sensitiveArgs: ['text'],
  budgetMs: () => QUICK_CALL_MS * 2,
  preview: (a) => ({
    kind: 'text',
    title: 'Replace the clipboard',
    fact: `Put ${[...a.text].length} characters on the remote desktop's clipboard:`,
    text: a.text,
  }),
  summarize: (a, r) =>
    r.ok ? `Put ${a.text.length} character(s) on the clipboard.` : 'The clipboard was not set.',
});
