// The policy gate in front of the viewer: decides allow / confirm / deny for a parsed call under
// the current mode (plus require_user_confirmation), gets the approval through the MCP client
// when the control viewer is headless, then relays with the per-tool time budget.
import {
  ProtocolError,
  type ToolArgs,
  type ToolName,
  type ToolViewerResult,
} from '@overlay-companion/protocol';
import { denialMessage, effectiveDecision } from '../policy/decide.js';
import { callBudgetMs } from '../relay/timeouts.js';
import { approveThroughClient } from './approvals.js';
import type { ToolContext } from './toolkit.js';

export interface RelayOutcome<N extends ToolName> {
  result: ToolViewerResult<N>;
  /** True when the person approved this call (in the viewer, or through the MCP client). */
  approvedByPerson: boolean;
}

export async function relayWithPolicy<N extends ToolName>(
  ctx: ToolContext,
  name: N,
  args: ToolArgs<N>,
): Promise<RelayOutcome<N>> {
  const { hub, mode } = ctx.plane;
  const snapshot = mode.snapshot;
  const decision = effectiveDecision(snapshot, name, args);
  if (decision === 'deny')
    throw new ProtocolError('permission_denied', denialMessage(snapshot, name));

  let policy: 'allow' | 'confirm' = decision;
  let approvedByPerson = false;
  if (decision === 'confirm') {
    const control = hub.control;
    if (control === undefined)
      throw new ProtocolError('viewer_unavailable', hub.noViewerGuidance());
    if (control.headless) {
      await approveThroughClient(ctx, {
        what: name,
        message: `The AI wants to run ${name} on the desktop with ${JSON.stringify(args)}. Allow it?`,
      });
      // The mode may have changed (Stop) while the client was asking: decide again.
      const now = mode.snapshot;
      if (effectiveDecision(now, name, args) === 'deny') {
        throw new ProtocolError('permission_denied', denialMessage(now, name));
      }
      // The person already approved; the headless viewer must not ask (nobody would answer).
      policy = 'allow';
      approvedByPerson = true;
    }
  }
  const result = await hub.call(name, args, policy, {
    timeoutMs: callBudgetMs(name, args, policy),
    signal: ctx.signal,
  });
  return { result, approvedByPerson };
}
