// Approvals when no person sits at the control viewer (a headless viewer): the question goes to
// the MCP client through elicitation, and only when the client declared that capability;
// otherwise it is denied with a message that says why. Declines, cancels, timeouts, Stop and a
// malformed answer all deny (fail closed).
import { APPROVAL_WINDOW_MS, ProtocolError } from '@overlay-companion/protocol';
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
  const capabilities = server.getClientCapabilities();
  if (capabilities?.elicitation === undefined) {
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
    throw new ProtocolError(
      'permission_denied',
      `${question.what} was not approved: asking through the MCP client failed (${err instanceof Error ? err.message : String(err)}).`,
    );
  }
  if (!approved) {
    throw new ProtocolError(
      'permission_denied',
      `The person declined ${question.what} (asked through the MCP client because the viewer is headless).`,
    );
  }
}
