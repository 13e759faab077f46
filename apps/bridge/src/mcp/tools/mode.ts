// set_mode: lowering the AI's power applies at once; raising it (decideModeChange) waits for
// the person's approval, asked in the control viewer (approval_request) — never through the MCP
// client: with only the headless viewer there, a raise is refused. In a site of several bridges
// the control window may be on another bridge, which asks there (site/remoteControl.ts). A
// malformed custom policy is stored as given and denies every input tool (decidePolicy fails closed).
// A raise is audited as a question to the person (decision confirm), worded as any other
// (audit/decider.ts): approved or denied by the person in charge, or no answer in time.
import { APPROVAL_WINDOW_MS, ProtocolError, decideModeChange } from '@overlay-companion/protocol';
import { raiseRefusedDecider, ruleDecider } from '../../audit/decider.js';
import { implementTool } from '../toolkit.js';

export const setMode = implementTool('set_mode', async (args, ctx) => {
  const { hub, mode } = ctx.plane;
  const from = mode.mode;
  const to = args.mode;
  const metadata = to === 'custom' ? (args.metadata ?? {}) : undefined;
  if (decideModeChange(from, to, 'ai') === 'approve') {
    // The person must be asked: whoever answers decides, read off how the question ended.
    ctx.note.decision = 'confirm';
    delete ctx.note.decidedBy;
    const remote =
      hub.control === undefined && ctx.remote !== undefined
        ? await ctx.remote.holder(ctx.plane.desktopId, ctx.signal)
        : undefined;
    const control = hub.control ?? remote;
    if (control === undefined) {
      throw new ProtocolError(
        'viewer_unavailable',
        `Switching from ${from} to ${to} needs the person's approval. ${hub.noViewerGuidance()}`,
      );
    }
    const what = `switching the mode from ${from} to ${to}`;
    if (control.headless) {
      // The AI's own client must never be what raises its power: only the person, in a window.
      // Nobody is asked: refused by that rule.
      ctx.note.decision = 'deny';
      ctx.note.decidedBy = ruleDecider('the rule that only a person raises the mode, in a window');
      throw new ProtocolError(
        'permission_denied',
        `${what} needs the person in one of their viewer windows; it is never approved through the MCP client. ${hub.noViewerGuidance()}`,
      );
    }
    {
      const options = { timeoutMs: APPROVAL_WINDOW_MS, signal: ctx.signal };
      const { approved, answered } =
        remote === undefined || ctx.remote === undefined
          ? await hub.requestModeApproval({ from, to, metadata, requestedBy: 'ai' }, options)
          : await ctx.remote.approveMode(remote, ctx.plane, { from, to, metadata }, options);
      if (!approved) {
        const noAnswer = `no answer within ${APPROVAL_WINDOW_MS / 1000} s`;
        if (answered === undefined) ctx.note.decidedBy = raiseRefusedDecider(ctx.plane.inCharge());
        else ctx.note.asked = answered ? 'denied' : 'timeout';
        const why =
          answered === undefined ? `declined, or ${noAnswer}` : answered ? 'declined' : noAnswer;
        throw new ProtocolError(
          'permission_denied',
          `The person did not approve ${what} (${why}). The mode stays ${mode.mode}.`,
        );
      }
    }
    ctx.note.approvedBy = ctx.session.principal.personName;
    // Stop (or the person picking a mode) while we waited wins over this approval.
    if (mode.mode !== from) {
      throw new ProtocolError(
        'permission_denied',
        `The mode changed to ${mode.mode} while the person was being asked, so ${what} was not applied.`,
      );
    }
  }
  mode.set(to, metadata, 'ai');
  const malformed = mode.customPolicyMalformed
    ? ' The custom policy cannot be read, so every input tool is denied until it is fixed.'
    : '';
  return {
    structured: { ok: true, active_mode: mode.mode },
    text: `The mode is now ${mode.mode}.${malformed}`,
  };
});
