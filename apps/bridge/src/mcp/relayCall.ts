// The policy gate in front of the viewer: the call arrives with the policy's decision
// (decideCall, made in toolCall.ts). A confirm gets the person's approval through the MCP client
// when the control viewer is headless (nobody sits there), else the control viewer asks the
// person; then the call is relayed with the per-tool time budget — to the control window here,
// or, in a site of several bridges, to the bridge that holds it (site/remoteControl.ts).
import {
  ProtocolError,
  aiClientRef,
  type Mode,
  type ToolArgs,
  type ToolViewerResult,
  type ViewerToolName,
} from '@overlay-companion/protocol';
import type { CallOptions, ModeApprovalAnswer } from '../relay/callRelay.js';
import { callBudgetMs } from '../relay/timeouts.js';
import type { DesktopPlane } from './desktopPlanes.js';
import { policyDecider, ruleDecider } from '../audit/decider.js';
import { approveThroughClient, clientApprover } from './approvals.js';
import { decideOnPlane } from './planeDecision.js';
import type { ToolContext } from './toolkit.js';

export interface RelayOutcome<N extends ViewerToolName> {
  result: ToolViewerResult<N>;
}

/** The bridge of the site that holds a desktop's control window. */
export interface RemoteHolder {
  bridge: string;
  headless: boolean;
}

/** Control windows on other bridges of the site (site/remoteControl.ts implements it). */
export interface RemoteControlRoute {
  /**
   * Where the desktop's control window is, when on another bridge (undefined: nowhere reachable);
   * may wait briefly for a window that just opened (`signal`: the call's cancellation).
   */
  holder(desktopId: string, signal?: AbortSignal): Promise<RemoteHolder | undefined>;
  call<N extends ViewerToolName>(
    holder: RemoteHolder,
    plane: DesktopPlane,
    name: N,
    args: ToolArgs<N>,
    policy: 'allow' | 'confirm',
    options: CallOptions,
  ): Promise<ToolViewerResult<N>>;
  /** Asks the person at `holder`'s control window to approve the AI's mode raise. */
  approveMode(
    holder: RemoteHolder,
    plane: DesktopPlane,
    request: { from: Mode; to: Mode; metadata: Record<string, unknown> | undefined },
    options: CallOptions,
  ): Promise<RemoteModeAnswer>;
}

/** The answer of a mode raise asked on another bridge (see ModeApprovalAnswer). */
export interface RemoteModeAnswer extends Omit<ModeApprovalAnswer, 'answered'> {
  /** Undefined: the window's bridge is older than this part of the answer and did not say. */
  answered: boolean | undefined;
}

export async function relayWithPolicy<N extends ViewerToolName>(
  ctx: ToolContext,
  name: N,
  args: ToolArgs<N>,
): Promise<RelayOutcome<N>> {
  const { hub } = ctx.plane;
  let policy = ctx.decision;
  // No control window here: another bridge of the site may hold it.
  const remote =
    hub.control === undefined && ctx.remote !== undefined
      ? await ctx.remote.holder(ctx.plane.desktopId, ctx.signal)
      : undefined;
  if (policy === 'confirm') {
    const control = hub.control ?? remote;
    if (control === undefined) throw hub.noViewerError();
    if (control.headless) {
      await approveThroughClient(ctx, {
        what: name,
        message: `The AI wants to run ${name} on the desktop with ${JSON.stringify(args)}. Allow it?`,
      });
      // The mode or the toggles may have changed (Stop) while the client was asking: decide again.
      const again = decideOnPlane(ctx.plane, name, args);
      if (again.decision === 'deny') {
        ctx.note.decidedBy = policyDecider(again, ctx.plane.mode.mode);
        throw new ProtocolError('permission_denied', again.message);
      }
      // The client approved (for the person, who allowed that); the headless viewer must not ask
      // (nobody would answer). The client's answer is not the person's: was_confirmed stays
      // false, and the audit names the client.
      policy = 'allow';
      ctx.note.approvedBy = clientApprover(ctx);
      ctx.note.decidedBy = ruleDecider(ctx.note.approvedBy);
    }
  }
  const { principal } = ctx.session;
  const options: CallOptions = {
    timeoutMs: callBudgetMs(name, args, policy),
    signal: ctx.signal,
    client: aiClientRef(principal.tokenId, principal.tokenName, ctx.session.clientName()),
    standingId: ctx.standingId,
  };
  const result =
    remote === undefined || ctx.remote === undefined
      ? await hub.call(name, args, policy, options)
      : await ctx.remote.call(remote, ctx.plane, name, args, policy, options);
  // Asked and answered in a window of the person in charge (only their windows may answer).
  if (policy === 'confirm') ctx.note.approvedBy = ctx.plane.inCharge().name;
  return { result };
}
