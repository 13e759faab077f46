// set_mode: the AI asks to change the session's mode. Lowering applies at once; raising waits
// for the person (isModeRaise in policy.ts). Metadata stays a loose record on purpose so that a
// malformed custom policy reaches decidePolicy and is denied there, rather than vanishing.
import { z } from 'zod';
import { Mode } from '../common.js';
import { defineTool } from './define.js';
import { IgnoredKeys } from './looseArgs.js';
import { plainText } from './textArgs.js';

export const MAX_MODE_METADATA_KEYS = 16;

export const ModeMetadata = plainText(
  z
    .record(z.string().max(64), z.unknown())
    .refine((m) => Object.keys(m).length <= MAX_MODE_METADATA_KEYS, {
      error: `must have at most ${MAX_MODE_METADATA_KEYS} keys`,
    }),
  "the AI's own request: custom mode's allow and deny lists of tool names, shown to the person",
);

export const SetModeInput = z.strictObject({
  mode: Mode,
  metadata: ModeMetadata.optional().describe(
    'For mode=custom: { "allow": [tool names], "deny": [tool names] } listing input tools (click_at, type_text, press_key, scroll, drag, mouse_move, get_clipboard, set_clipboard). Unlisted input tools ask the person; deny wins over allow; an unreadable list denies all input. Ignored for other modes.',
  ),
});
export const SetModeResult = z.strictObject({
  ok: z.boolean().describe('True when the requested mode is now active.'),
  active_mode: Mode.describe('The mode in force after this call.'),
  pending_approval: z
    .boolean()
    .optional()
    .describe(
      'True when the change needs the person and they have not answered yet; the old mode stays active.',
    ),
  ignored: IgnoredKeys,
});

export const setMode = defineTool({
  name: 'set_mode',
  title: 'Set mode',
  description:
    "Asks to change what input the AI may perform. passive: overlays and screenshots only. assist: every click/key/clipboard action asks the person. composing: typing and clipboard run freely, pointer actions ask. autopilot: input runs without asking. custom: per-tool allow/deny list in metadata. Lowering power applies at once; raising it needs the person's approval in the viewer (a refusal is a permission_denied error). Returns the active mode.",
  input: SetModeInput,
  result: SetModeResult,
  annotations: {
    readOnlyHint: false,
    destructiveHint: false,
    idempotentHint: true,
    openWorldHint: false,
  },
  kind: 'mode',
  runsIn: 'bridge',
  policyClass: 'free',
  // allow/deny are read by the custom policy; anything else in metadata is ignored.
  looseObjects: { metadata: ['allow', 'deny'] },
  summarize: (a, r) =>
    r.pending_approval === true
      ? `Asked the person to approve ${a.mode}; ${r.active_mode} stays active until they do.`
      : r.ok
        ? `Mode is now ${r.active_mode}.`
        : `Mode stays ${r.active_mode}.`,
});
