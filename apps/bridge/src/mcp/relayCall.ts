// The policy gate in front of the viewer: the call arrives with the policy's decision
// (decideCall, made in toolCall.ts). A confirm gets the person's approval through the MCP client
// when the control viewer is headless (nobody sits there), else the control viewer asks the
// person; then the call is relayed with the per-tool time budget.
import {
  ProtocolError,
  aiClientRef,
  type ToolArgs,
  type ToolViewerResult,
  type ViewerToolName,
} from '@overlay-companion/protocol';
import { callBudgetMs } from '../relay/timeouts.js';
import { approveThroughClient, clientApprover } from './approvals.js';
import { decideOnPlane } from './planeDecision.js';
import type { ToolContext } from './toolkit.js';

export interface RelayOutcome<N extends ViewerToolName> {
  result: ToolViewerResult<N>;
}

export async function relayWithPolicy<N extends ViewerToolName>(
  ctx: ToolContext,
  name: N,
  args: ToolArgs<N>,
): Promise<RelayOutcome<N>> {
  const { hub } = ctx.plane;
  let policy = ctx.decision;
  if (policy === 'confirm') {
    const control = hub.control;
    if (control === undefined) throw hub.noViewerError();
    if (control.headless) {
      await approveThroughClient(ctx, {
        what: name,
        message: `The AI wants to run ${name} on the desktop with ${JSON.stringify(args)}. Allow it?`,
      });
      // The mode or the toggles may have changed (Stop) while the client was asking: decide again.
      const again = decideOnPlane(ctx.plane, name, args);
      if (again.decision === 'deny') throw new ProtocolError('permission_denied', again.message);
      // The client approved (for the person, who allowed that); the headless viewer must not ask
      // (nobody would answer). The client's answer is not the person's: was_confirmed stays
      // false, and the audit names the client.
      policy = 'allow';
      ctx.note.approvedBy = clientApprover(ctx);
    }
  }
  const { principal } = ctx.session;
  const result = await hub.call(name, args, policy, {
    timeoutMs: callBudgetMs(name, args, policy),
    signal: ctx.signal,
    client: aiClientRef(principal.tokenId, principal.tokenName, ctx.session.clientName()),
    standingId: ctx.standingId,
  });
  // Asked and answered in a window of the person in charge (only their windows may answer).
  if (policy === 'confirm') ctx.note.approvedBy = ctx.plane.inCharge().name;
  return { result };
}
