// Defence in depth: the viewer re-decides every tool call with the one policy the bridge uses
// (decideCall over the mode and the permissions this window knows), and the stricter answer
// wins. A deny here is a permission_denied even if the bridge said allow; a confirm asks the
// person unless the bridge said allow because (a) this is the headless viewer and the MCP client
// answered for the person, or (b) a standing permission the bridge names (standing_id) allows
// it — and this window's copy of the bridge's list has that same permission for this tool and
// client, still running. The decision itself is the bridge's: a window never turns an ask into
// an allow on its own.
import {
  decideCall,
  matchingStandingPermission,
  type StandingPermission,
  type Mode,
  type Permissions,
  type ToolName,
} from '@overlay-companion/protocol';

export type GateDecision =
  { action: 'run' } | { action: 'confirm' } | { action: 'deny'; message: string };

export interface GateInput {
  /** null before the bridge said hello: treated as passive, so input is denied. */
  mode: Mode | null;
  metadata: unknown;
  /** null before hello: every tool that needs a permission is denied. */
  permissions: Permissions | null;
  name: ToolName;
  args: unknown;
  bridgePolicy: 'allow' | 'confirm';
  headless: boolean;
  /** AiClientRef.key of the calling client (from the bridge), for standing permissions. */
  clientKey?: string | undefined;
  /** The standing permission the bridge says allowed this call (tool_call.standing_id). */
  standingId?: string | undefined;
  /** The desktop's standing permissions, as the bridge last listed them. */
  standing?: readonly StandingPermission[];
  now?: number;
}

export function gateToolCall(input: GateInput): GateDecision {
  const verdict = decideCall({
    mode: input.mode ?? 'passive',
    metadata: input.metadata,
    permissions: input.permissions ?? undefined,
    tool: input.name,
    args: input.args,
  });
  if (verdict.decision === 'deny') {
    const why =
      input.mode === null
        ? `${input.name} was refused by the viewer: it does not know the mode yet.`
        : `Refused by the viewer: ${verdict.message}`;
    return { action: 'deny', message: why };
  }
  if (verdict.decision === 'allow' && input.bridgePolicy === 'allow') return { action: 'run' };
  // Someone wants confirmation. Only the headless viewer may skip asking, and only when the
  // bridge says it already has the person's approval.
  if (input.headless && input.bridgePolicy === 'allow') return { action: 'run' };
  // The bridge says the person allowed this for a while: check it against the list it sent.
  if (input.bridgePolicy === 'allow' && input.standingId !== undefined) {
    const standing = matchingStandingPermission(
      { decision: 'confirm' },
      { tool: input.name, args: input.args, clientKey: input.clientKey },
      (input.standing ?? []).filter((p) => p.id === input.standingId),
      input.now ?? Date.now(),
    );
    if (standing !== undefined) return { action: 'run' };
  }
  return { action: 'confirm' };
}
