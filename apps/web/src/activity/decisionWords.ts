// How a tool call was decided and how it ended, in words — the one definition the audit log's
// rows (ActionLogEntry, AuditTable) and the AI's timeline cards (recordings/AiActionCards) both
// show, so a person reading both reads one wording, naming who or what decided (the audit's
// decided_by): "Allowed by the mode autopilot · done in 4 ms", "Asked · denied by Ada",
// "Asked · ended by Stop, pressed by Bo", "Refused by the mode passive". Entries written before the
// audit kept decided_by read as before ("Asked · denied by the person").
import type { AuditDecision, AuditEntryView } from '@overlay-companion/protocol';

/** What a wording needs of a call: the audit's decision, who decided and approved it, how it ended. */
export interface DecidedCall {
  /** The audit's decision (null: not a decided call, or a recording made before it was kept). */
  decision: AuditDecision | null;
  approvedBy: string | null;
  /** Who or what decided it, in words (null: an entry from before the audit kept it). */
  decidedBy: string | null;
  /** The audit's outcome code ("ok", "stopped", "timeout", …; null: still running). */
  outcome: string | null;
  durationMs: number | null;
}

/** How an outcome reads (the bridge's ASK_OUTCOMES and error kinds); others read "ended: code". */
const ENDED: Readonly<Record<string, string>> = {
  denied_by_person: 'denied by the person',
  no_answer: 'no answer in time, so denied',
  withdrawn: 'withdrawn before an answer',
  permission_denied: 'refused by the policy',
  stopped: 'ended by Stop',
  cancelled: 'cancelled',
  timeout: 'timed out',
  viewer_unavailable: 'no viewer window to ask in, so denied',
};

/** "4 ms", "1.2 s" — how long a call took, as the audit table shows it. */
export function durationText(ms: number): string {
  const rounded = Math.round(ms);
  return rounded < 1000 ? `${rounded} ms` : `${(rounded / 1000).toFixed(1)} s`;
}

/** How a question's ending reads when the audit names who decided it ("denied by Ada"). */
const ENDED_BY: Readonly<Record<string, (who: string) => string>> = {
  denied_by_person: (who) => `denied by ${who}`,
  stopped: (who) => `ended by ${who}`,
};

/** How a tool call was decided, and by whom: the mode, a standing permission, a person, a rule. */
export function decisionSentence(
  call: Pick<DecidedCall, 'decision' | 'approvedBy' | 'decidedBy' | 'outcome'>,
): string {
  const { decidedBy } = call;
  switch (call.decision) {
    case null:
      return '—';
    case 'allow':
      return `Allowed by ${decidedBy ?? 'the mode'}`;
    case 'standing':
      return `Allowed by ${decidedBy ?? 'a standing permission'}`;
    case 'deny':
      return `Refused by ${decidedBy ?? 'the policy'}`;
    case 'confirm': {
      if (call.outcome === 'ok' || call.approvedBy !== null)
        return `Asked · approved by ${call.approvedBy ?? decidedBy ?? 'the person'}`;
      const named = call.outcome === null ? undefined : ENDED_BY[call.outcome];
      if (named !== undefined && decidedBy !== null) return `Asked · ${named(decidedBy)}`;
      const how = call.outcome === null ? undefined : ENDED[call.outcome];
      return how === undefined ? 'Asked the person' : `Asked · ${how}`;
    }
  }
}

/**
 * How the call ended, when the decision does not already say it: "done in 4 ms", "ended by
 * Stop", "ended: no_viewer"; '' while it runs or when the decision says it ("Asked · timed out").
 */
export function outcomeSentence(call: DecidedCall): string {
  const { outcome } = call;
  if (outcome === null) return '';
  if (outcome === 'ok')
    return call.durationMs === null ? 'done' : `done in ${durationText(call.durationMs)}`;
  if (call.decision === 'deny' && outcome === 'permission_denied') return '';
  if (call.decision === 'confirm' && call.approvedBy === null && Object.hasOwn(ENDED, outcome))
    return '';
  return Object.hasOwn(ENDED, outcome) ? (ENDED[outcome] ?? '') : `ended: ${outcome}`;
}

/** The decision and the outcome in one line: "Allowed by the mode · done in 4 ms". */
export function callSentence(call: DecidedCall): string {
  const ended = outcomeSentence(call);
  return ended === '' ? decisionSentence(call) : `${decisionSentence(call)} · ${ended}`;
}

type AuditFacts = Pick<
  AuditEntryView,
  'kind' | 'decision' | 'approved_by' | 'decided_by' | 'outcome' | 'duration_ms'
>;

/** An audit entry as a decided call (an entry that is not a tool call keeps no decision here). */
export function auditCall(entry: AuditFacts): DecidedCall {
  return {
    decision: entry.kind === 'tool_call' ? entry.decision : null,
    approvedBy: entry.approved_by,
    decidedBy: entry.kind === 'tool_call' ? entry.decided_by : null,
    outcome: entry.outcome,
    durationMs: entry.duration_ms,
  };
}

/** The audit table's decision column: a tool call's decision; "Allowed"/"Denied" for the rest. */
export function auditDecisionSentence(entry: AuditFacts): string {
  if (entry.decision !== null && entry.kind !== 'tool_call')
    return entry.decision === 'deny' ? 'Denied' : 'Allowed';
  return decisionSentence(auditCall(entry));
}

/** An audit row's decision and outcome in one line (the action log; a card reads the same). */
export function auditCallSentence(entry: AuditFacts): string {
  if (entry.kind !== 'tool_call') return auditDecisionSentence(entry);
  return callSentence(auditCall(entry));
}
