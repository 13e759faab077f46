// Approvals when no person sits at the control viewer (a headless viewer): the question goes to
// the MCP client through elicitation — only when the person in charge turned that on
// ("approvals_through_client", off by default: otherwise the AI's own client would be answering
// for the person) and the client declared the capability; a person's window takes the control
// role from the headless viewer, so this never runs while one is open. Never for raising the
// mode (tools/mode.ts). Declines, cancels, timeouts, Stop and a malformed answer all deny (fail
// closed). What the client answered is recorded as the client's answer, not the person's.
import { APPROVAL_WINDOW_MS, PERMISSION_LABELS, ProtocolError } from '@overlay-companion/protocol';
import { ruleDecider } from '../audit/decider.js';
import type { ToolContext } from './toolkit.js';

export interface ApprovalQuestion {
  /** Shown to the person by their MCP client. */
  message: string;
  /** Used in denial messages, e.g. "click_at" or "switching to autopilot". */
  what: string;
}

/** Resolves when approved; throws permission_denied otherwise. */
export async function approveThroughClient(
  ctx: ToolContext,
  question: ApprovalQuestion,
): Promise<void> {
  const server = ctx.session.server.server;
  if (!ctx.plane.permissions().approvals_through_client) {
    ctx.note.decidedBy = ruleDecider(
      `the setting “${PERMISSION_LABELS.approvals_through_client}” (off), with no window of the person’s open`,
    );
    throw new ProtocolError(
      'permission_denied',
      `${question.what} needs the person's approval, and no window of theirs is open to ask in (only the headless viewer). Approving through the MCP client is off: the person can open the viewer, or turn on "${PERMISSION_LABELS.approvals_through_client}" in Settings.`,
    );
  }
  const capabilities = server.getClientCapabilities();
  if (capabilities?.elicitation === undefined) {
    ctx.note.decidedBy = ruleDecider(
      'no window of the person’s open, and the MCP client cannot ask (no elicitation)',
    );
    throw new ProtocolError(
      'permission_denied',
      `${question.what} needs the person's approval, but the control viewer is headless (nobody can answer there) and this MCP client did not declare the elicitation capability, so it cannot ask either. Use a client that supports elicitation, or have the person change the mode in a viewer.`,
    );
  }
  const stop = ctx.plane.stopSignal();
  const signal = AbortSignal.any([ctx.signal, stop]);
  let approved = false;
  try {
    const answer = await server.elicitInput(
      {
        mode: 'form',
        message: question.message,
        requestedSchema: {
          type: 'object',
          properties: {
            approve: {
              type: 'boolean',
              title: 'Approve',
              description: 'Tick to allow it; anything else denies it.',
              default: false,
            },
          },
          required: ['approve'],
        },
      },
      { signal, timeout: APPROVAL_WINDOW_MS, relatedRequestId: ctx.requestId },
    );
    approved = answer.action === 'accept' && answer.content?.approve === true;
  } catch (err) {
    if (signal.aborted) {
      throw new ProtocolError(
        'cancelled',
        `${question.what} was not approved: the request was stopped or cancelled.`,
      );
    }
    ctx.note.decidedBy = ruleDecider(`${clientApprover(ctx)}: asking it failed`);
    throw new ProtocolError(
      'permission_denied',
      `${question.what} was not approved: asking through the MCP client failed (${err instanceof Error ? err.message : String(err)}).`,
    );
  }
  if (!approved) {
    ctx.note.decidedBy = ruleDecider(clientApprover(ctx));
    throw new ProtocolError(
      'permission_denied',
      `The MCP client's answer declined ${question.what} (asked through the client because no window of the person's is open).`,
    );
  }
}

/** Who approved, when the MCP client answered: the client, for the person (never the person). */
export function clientApprover(ctx: ToolContext): string {
  const client = ctx.session.clientName() ?? 'unnamed client';
  return `the MCP client "${client}" (${ctx.session.principal.tokenName}), for ${ctx.session.principal.personName}`;
}
