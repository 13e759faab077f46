// An AI action of the event track, decided and ended, in the audit log's words (the one wording
// is activity/decisionWords.ts): what the timeline cards, the seek bar's markers and the event
// list beside the player say of it.
import { callSentence, outcomeSentence, type DecidedCall } from '../activity/decisionWords.js';
import type { AiActionEvent } from './recordingsWire.js';

/**
 * How the action was decided and how it ended, worded as the audit log words it (decisionWords):
 * "Allowed by the mode · done in 4 ms". A recording made before the track kept the audit's
 * decision words its own ("Approved by Ada · done in 4 ms").
 */
export function decisionText(action: AiActionEvent): string {
  const call: DecidedCall = {
    decision: action.auditDecision ?? null,
    approvedBy: action.approvedBy ?? null,
    decidedBy: action.decidedBy ?? null,
    outcome: action.outcome ?? null,
    durationMs: action.durationMs ?? null,
  };
  if (call.decision !== null) return callSentence(call);
  const said = action.decision.charAt(0).toUpperCase() + action.decision.slice(1);
  const decided = action.approvedBy === undefined ? said : `${said} by ${action.approvedBy}`;
  // "Stopped" and "Denied" say how it ended already.
  const ended =
    action.decision === 'stopped' || action.decision === 'denied' ? '' : outcomeSentence(call);
  return ended === '' ? decided : `${decided} · ${ended}`;
}
