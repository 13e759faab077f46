// The bridge's policy step before a tool call is relayed: the mode's decision (decidePolicy),
// upgraded to confirm when the AI asks for it (require_user_confirmation), and the words of a
// denial, which say which modes would allow the tool and that the person changes the mode in
// the viewer.
import {
  CustomPolicy,
  MODES,
  decidePolicy,
  formatZodIssues,
  type PolicyDecision,
  type ToolName,
} from '@overlay-companion/protocol';
import type { ModeSnapshot } from './modeState.js';

export function effectiveDecision(
  snapshot: ModeSnapshot,
  tool: ToolName,
  args: unknown,
): PolicyDecision {
  const decision = decidePolicy(snapshot.mode, snapshot.metadata, tool);
  if (decision === 'allow' && wantsConfirmation(args)) return 'confirm';
  return decision;
}

function wantsConfirmation(args: unknown): boolean {
  return (
    typeof args === 'object' &&
    args !== null &&
    (args as { require_user_confirmation?: unknown }).require_user_confirmation === true
  );
}

const MODE_WORDS: Record<string, string> = {
  assist: 'assist (the person approves each action)',
  composing: 'composing',
  autopilot: 'autopilot',
};

/** Why `tool` is denied under `snapshot`, and what the AI and the person can do about it. */
export function denialMessage(snapshot: ModeSnapshot, tool: ToolName): string {
  const allowing = MODES.filter(
    (m) => m !== 'custom' && decidePolicy(m, undefined, tool) !== 'deny',
  ).map((m) => MODE_WORDS[m] ?? m);
  const where =
    allowing.length > 0
      ? `It is allowed in ${allowing.join(', ')} mode, or in custom mode when listed in allow.`
      : 'No mode allows it.';
  const next =
    'The person can change the mode in the viewer; you can ask for it with set_mode (raising the mode needs their approval).';
  if (snapshot.mode === 'custom') {
    const parsed = CustomPolicy.safeParse(snapshot.metadata ?? {});
    if (!parsed.success) {
      return `${tool} is denied: the custom mode's policy cannot be read (${formatZodIssues(parsed.error)}), so every input tool is denied. ${where} ${next}`;
    }
    return `${tool} is denied by the custom mode's policy (it is in its deny list). ${where} ${next}`;
  }
  return `${tool} is not allowed in ${snapshot.mode} mode. ${where} ${next}`;
}
