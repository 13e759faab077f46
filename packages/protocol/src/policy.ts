// The mode policy: what each mode lets input tools do (decidePolicy), the custom allow/deny list
// (CustomPolicy), and which mode changes raise the AI's power and so need the person's approval
// (isModeRaise). Pure functions, used by the bridge before relaying and by tests as the spec.
import { z } from 'zod';
import type { Mode } from './common.js';
import { INPUT_POLICY_TOOLS, isToolName, needsInputPolicy } from './tools/names.js';

export type PolicyDecision = 'allow' | 'confirm' | 'deny';

export const InputPolicyToolNameSchema = z.enum(INPUT_POLICY_TOOLS);

/**
 * Metadata of the `custom` mode. Only input tools can be listed: every other tool is always
 * allowed by the mode, so listing one is a mistake we reject rather than silently ignore.
 * A tool in `deny` is refused even if also in `allow`; a tool in neither asks the person.
 */
export const CustomPolicy = z.strictObject({
  allow: z
    .array(InputPolicyToolNameSchema)
    .max(INPUT_POLICY_TOOLS.length)
    .optional()
    .describe('Input tools that run without asking.'),
  deny: z
    .array(InputPolicyToolNameSchema)
    .max(INPUT_POLICY_TOOLS.length)
    .optional()
    .describe('Input tools that are refused (wins over allow).'),
});
export type CustomPolicy = z.infer<typeof CustomPolicy>;

/**
 * What the mode says about calling `toolName`:
 * - non-input tools (overlays, screenshots, display info, events, set_mode) → allow, in every
 *   mode; raising the mode is gated separately by isModeRaise + the person's approval;
 * - passive → deny every input tool (clicks, keys, clipboard);
 * - assist → confirm every input tool;
 * - composing → allow typing (type_text, press_key) and the clipboard; confirm pointer tools;
 * - autopilot → allow (rate limits are the bridge's business, not the mode's);
 * - custom → `customMetadata` parsed as CustomPolicy: deny list → deny, allow list → allow,
 *   unlisted → confirm; no metadata → confirm every input tool; metadata that does not parse
 *   (including null) → deny every input tool.
 * An unknown tool name → deny.
 */
export function decidePolicy(
  mode: Mode,
  customMetadata: unknown,
  toolName: string,
): PolicyDecision {
  if (!isToolName(toolName)) return 'deny';
  if (!needsInputPolicy(toolName)) return 'allow';
  switch (mode) {
    case 'passive':
      return 'deny';
    case 'assist':
      return 'confirm';
    case 'composing':
      return toolName === 'type_text' ||
        toolName === 'press_key' ||
        toolName === 'get_clipboard' ||
        toolName === 'set_clipboard'
        ? 'allow'
        : 'confirm';
    case 'autopilot':
      return 'allow';
    case 'custom': {
      // No metadata at all is an empty list (everything asks); null or any other shape is malformed.
      const parsed = CustomPolicy.safeParse(customMetadata === undefined ? {} : customMetadata);
      // A policy we cannot read must not grant anything: fail closed.
      if (!parsed.success) return 'deny';
      if (parsed.data.deny?.includes(toolName)) return 'deny';
      if (parsed.data.allow?.includes(toolName)) return 'allow';
      return 'confirm';
    }
    default: {
      // Exhaustive: a new mode must be given a rule here. At runtime an unknown mode fails closed.
      const unknownMode: never = mode;
      void unknownMode;
      return 'deny';
    }
  }
}

/**
 * Power ranking used for approvals, lowest first:
 *   passive (no input) < assist (input, every action confirmed)
 *     < composing (typing and clipboard free, pointer confirmed) < autopilot (all free).
 * `custom` can grant anything, so as a *target* it ranks above everything: switching to custom
 * (even custom → custom with a new list) is always a raise. As a *source* it may have been very
 * restrictive, so it ranks like passive: leaving custom for anything but passive is a raise.
 */
const RANK: Readonly<Record<Exclude<Mode, 'custom'>, number>> = {
  passive: 0,
  assist: 1,
  composing: 2,
  autopilot: 3,
};

/** True when going from `from` to `to` gives the AI more power, so the person must approve. */
export function isModeRaise(from: Mode, to: Mode): boolean {
  if (to === 'custom') return true;
  const fromRank = from === 'custom' ? RANK.passive : RANK[from];
  return RANK[to] > fromRank;
}
