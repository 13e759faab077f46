// The one policy: "may this call run now, and must the person approve it" (decideCall), built
// from the mode's rule for input tools (decidePolicy, with the custom allow/deny list
// CustomPolicy), the person's permission toggles (permissions.ts) and the AI's own request for
// confirmation; the words of a denial (denialMessage); who may change the mode and how
// (decideModeChange, isModeRaise); and how long the person has to answer (APPROVAL_WINDOW_MS).
// Pure functions, used by the bridge before relaying, by the viewer before acting, and by the
// README's mode table test as the spec.
import { z } from 'zod';
import { MODES, type Mode } from './common.js';
import {
  TOOL_PERMISSIONS,
  permissionDeniedMessage,
  type PermissionName,
  type Permissions,
} from './permissions.js';
import {
  INPUT_POLICY_TOOLS,
  isToolName,
  needsInputPolicy,
  policyClassOf,
  type InputPolicyToolName,
} from './tools/names.js';

/**
 * How long the person has to approve or deny anything (a tool call, a mode raise, an approval
 * asked through the MCP client); no answer in this window denies. One constant for both apps.
 */
export const APPROVAL_WINDOW_MS = 30_000;

export type PolicyDecision = 'allow' | 'confirm' | 'deny';

const InputPolicyToolNameSchema = z.enum(
  INPUT_POLICY_TOOLS as [InputPolicyToolName, ...InputPolicyToolName[]],
);

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
      // Typing and the clipboard run; pointer actions (which can click anything) ask.
      return policyClassOf(toolName) === 'pointer' ? 'confirm' : 'allow';
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

// ---- the whole decision ---------------------------------------------------------------------

export interface CallPolicyInput {
  mode: Mode;
  /** The custom policy when mode is custom (anything else is ignored). */
  metadata: unknown;
  /** The person's toggles; undefined (not known yet) denies every tool that needs one. */
  permissions: Permissions | undefined;
  tool: string;
  /** The call's arguments, for require_user_confirmation. */
  args: unknown;
}

export type CallDecision =
  | { decision: 'allow' | 'confirm' }
  | {
      decision: 'deny';
      /** What denied it: the mode (or an unknown tool), or a permission toggle. */
      by: 'mode' | 'permission';
      permission?: PermissionName;
      /** Why, and what the AI and the person can do about it. */
      message: string;
    };

/**
 * The one decision for a tool call, made the same way by the bridge (before relaying, and again
 * when the mode or permissions change while a call waits) and by the viewer (before acting):
 * 1. an unknown tool is denied;
 * 2. a permission the person turned off denies (whatever the mode);
 * 3. the mode's rule for input tools (decidePolicy) — deny, confirm or allow;
 * 4. an allowed call that asks for require_user_confirmation is confirmed.
 */
export function decideCall(input: CallPolicyInput): CallDecision {
  const { tool } = input;
  if (!isToolName(tool)) {
    return {
      decision: 'deny',
      by: 'mode',
      message: `There is no tool ${JSON.stringify(tool.slice(0, 64))}; call tools/list for the available tools.`,
    };
  }
  const permission = TOOL_PERMISSIONS[tool];
  if (permission !== undefined && input.permissions?.[permission] !== true) {
    return {
      decision: 'deny',
      by: 'permission',
      permission,
      message:
        input.permissions === undefined
          ? `${tool} is denied: the person's permissions are not known yet. Try again in a moment.`
          : permissionDeniedMessage(tool, permission),
    };
  }
  const byMode = decidePolicy(input.mode, input.metadata, tool);
  if (byMode === 'deny') {
    return {
      decision: 'deny',
      by: 'mode',
      message: denialMessage(input.mode, input.metadata, tool),
    };
  }
  if (byMode === 'allow' && wantsConfirmation(input.args)) return { decision: 'confirm' };
  return { decision: byMode };
}

/** True when the AI asked for the person's approval itself (require_user_confirmation). */
export function wantsConfirmation(args: unknown): boolean {
  return (
    typeof args === 'object' &&
    args !== null &&
    (args as { require_user_confirmation?: unknown }).require_user_confirmation === true
  );
}

const MODE_WORDS: Readonly<Record<string, string>> = {
  assist: 'assist (the person approves each action)',
  composing: 'composing',
  autopilot: 'autopilot',
};

/** Why the mode denies `tool`, which modes would allow it, and what the AI and person can do. */
function denialMessage(mode: Mode, metadata: unknown, tool: string): string {
  if (!isToolName(tool)) return `There is no tool ${JSON.stringify(tool.slice(0, 64))}.`;
  const allowing = MODES.filter(
    (m) => m !== 'custom' && decidePolicy(m, undefined, tool) !== 'deny',
  ).map((m) => MODE_WORDS[m] ?? m);
  const where =
    allowing.length > 0
      ? `It is allowed in ${allowing.join(', ')} mode, or in custom mode when listed in allow.`
      : 'No mode allows it.';
  const next =
    'The person can change the mode in the viewer; you can ask for it with set_mode (raising the mode needs their approval).';
  if (mode === 'custom') {
    const parsed = CustomPolicy.safeParse(metadata ?? {});
    if (!parsed.success) {
      return `${tool} is denied: the custom mode's policy cannot be read, so every input tool is denied. ${where} ${next}`;
    }
    return `${tool} is denied by the custom mode's policy (it is in its deny list). ${where} ${next}`;
  }
  return `${tool} is not allowed in ${mode} mode. ${where} ${next}`;
}

// ---- changing the mode ----------------------------------------------------------------------

/**
 * Who asks for a mode change: the person in one of their own viewer windows, a headless viewer
 * (no person behind it), or the AI (set_mode).
 */
export type ModeChangeActor = 'person' | 'headless_viewer' | 'ai';

/**
 * What a mode change needs:
 * - apply: lowering (or keeping) the AI's power — at once, from any of the person's windows, and
 *   from the AI too (it may always give power back);
 * - approve: raising it — only once the person approves in one of their own windows (or, with a
 *   headless viewer, through the MCP client's elicitation);
 * - refuse: a headless viewer never raises the mode: nobody there could have chosen it.
 */
export function decideModeChange(
  from: Mode,
  to: Mode,
  actor: ModeChangeActor,
): 'apply' | 'approve' | 'refuse' {
  if (!isModeRaise(from, to)) return 'apply';
  return actor === 'headless_viewer' ? 'refuse' : 'approve';
}
