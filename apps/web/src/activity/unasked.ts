// Which desktop actions the AI may take without asking the person right now, from the one
// policy (decideCall) and the person's standing permissions: the basis of the indicator that
// must be on whenever the answer is "some".
import {
  INPUT_POLICY_TOOLS,
  decideCall,
  type Mode,
  type Permissions,
  type StandingPermission,
  type ToolName,
} from '@overlay-companion/protocol';

export interface UnaskedInput {
  mode: Mode | null;
  metadata: unknown;
  permissions: Permissions | null;
  standing: readonly Pick<StandingPermission, 'tool' | 'expiresAt'>[];
  now: number;
}

/** Input tools that would run without a question (by mode or by a standing permission). */
export function toolsAllowedUnasked(input: UnaskedInput): ToolName[] {
  if (input.mode === null) return [];
  const allowed = new Set<ToolName>();
  for (const tool of INPUT_POLICY_TOOLS) {
    const verdict = decideCall({
      mode: input.mode,
      metadata: input.metadata,
      permissions: input.permissions ?? undefined,
      tool,
      args: {},
    });
    if (verdict.decision === 'allow') allowed.add(tool);
    else if (
      verdict.decision === 'confirm' &&
      input.standing.some(
        (s) => s.tool === tool && (s.expiresAt === null || s.expiresAt > input.now),
      )
    )
      allowed.add(tool);
  }
  return [...allowed];
}
