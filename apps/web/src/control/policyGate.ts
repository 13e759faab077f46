// Defence in depth: the viewer re-decides every tool call with the same policy the bridge uses
// (decidePolicy over the mode this window knows), and the stricter answer wins. A deny here is
// a permission_denied even if the bridge said allow; a confirm asks the person unless this is
// the headless viewer and the bridge already got the person's approval through MCP elicitation
// (the bridge then sends policy 'allow'; nobody sits at a headless viewer to ask).
import { decidePolicy, type Mode, type ToolName } from '@overlay-companion/protocol';

export type GateDecision =
  { action: 'run' } | { action: 'confirm' } | { action: 'deny'; message: string };

export interface GateInput {
  /** null before the bridge said hello: treated as passive, so input is denied. */
  mode: Mode | null;
  metadata: unknown;
  name: ToolName;
  args: unknown;
  bridgePolicy: 'allow' | 'confirm';
  headless: boolean;
}

function wantsConfirmation(args: unknown): boolean {
  return (
    typeof args === 'object' &&
    args !== null &&
    (args as { require_user_confirmation?: unknown }).require_user_confirmation === true
  );
}

export function gateToolCall(input: GateInput): GateDecision {
  const mode = input.mode ?? 'passive';
  let local = decidePolicy(mode, input.metadata, input.name);
  if (local === 'allow' && wantsConfirmation(input.args)) local = 'confirm';
  if (local === 'deny') {
    const why =
      input.mode === null
        ? 'the viewer does not know the mode yet'
        : mode === 'custom'
          ? "the custom mode's policy denies it (or cannot be read)"
          : `it is not allowed in ${mode} mode`;
    return {
      action: 'deny',
      message: `${input.name} was refused by the viewer: ${why}. The person can change the mode in the viewer; you can ask with set_mode.`,
    };
  }
  if (local === 'allow' && input.bridgePolicy === 'allow') return { action: 'run' };
  // Someone wants confirmation. Only the headless viewer may skip asking, and only when the
  // bridge says it already has the person's approval.
  if (input.headless && input.bridgePolicy === 'allow') return { action: 'run' };
  return { action: 'confirm' };
}
