// Who or what decided an AI tool call, as the audit log keeps it (ARCHITECTURE: "The audit records
// who or what decided"): the person who answered the approval (approved or denied), pressed Stop
// or gave the standing permission that allowed it — by id and display name — or the rule that
// decided without anyone: the mode, a permission toggle, no answer in time, no window to ask in,
// the MCP client that answered for the person. One place for the words, so the audit table, the
// action log and the recording's event track (all read the entry) say the same. Stop's presser is
// named as the audit's other entries name people (AuditLog.displayName: the store's people table,
// which every bridge of a site shares), so one whose windows are all on another bridge is named
// too; the person in charge by the name their desktop's plane holds.
import {
  APPROVAL_WINDOW_MS,
  PERMISSION_LABELS,
  type AuditDecision,
  type CallDecision,
  type Mode,
} from '@overlay-companion/protocol';

export interface Decider {
  /** A person's display name, or the rule in words ("the mode autopilot"). */
  name: string;
  /** The person who decided, when a person did; null for a rule or an MCP client. */
  personId: string | null;
  /**
   * The words with the person's display name, for a decider named once the audit has read it
   * (AuditLog.recordCall); `name` holds the words with their id, kept if the read fails.
   */
  named?: (displayName: string) => string;
}

/** The person (in charge, pressing Stop, giving a standing permission) who decided. */
export function personDecider(person: { id: string; name: string }): Decider {
  return { name: person.name, personId: person.id };
}

/** A rule or a program (the mode, a toggle, a time limit, the MCP client) that decided. */
export function ruleDecider(name: string): Decider {
  return { name, personId: null };
}

/**
 * Why the desktop's stop signal aborted (its `reason`): Stop, pressed by this person (undefined:
 * the bridge stopped everything, e.g. the desktop closed). By id only: the window may be on
 * another bridge of the site, which alone saw the person; the audit reads the name.
 */
export interface StopCause {
  kind: 'stop';
  byPersonId: string | undefined;
}

export function stopCause(byPersonId: string | undefined): StopCause {
  return { kind: 'stop', byPersonId };
}

function isStopCause(reason: unknown): reason is StopCause {
  return (
    typeof reason === 'object' && reason !== null && (reason as { kind?: unknown }).kind === 'stop'
  );
}

/** "Stop, pressed by Bo". */
const stopPressedBy = (who: string): string => `Stop, pressed by ${who}`;

/** Stop, and who pressed it (named from the store: AuditLog.recordCall). */
function stopDecider(cause: StopCause): Decider {
  const id = cause.byPersonId;
  return id === undefined
    ? ruleDecider('Stop (by the bridge)')
    : { name: stopPressedBy(id), personId: id, named: stopPressedBy };
}

/** How the audit words a question nobody answered in time. */
const NO_ANSWER = `no answer within ${String(APPROVAL_WINDOW_MS / 1000)} s`;

/**
 * A refused mode raise whose answer does not say whether the person declined or nobody answered:
 * asked on a bridge of the site older than that answer (site/messages.ts ForwardedAnswer).
 */
export function raiseRefusedDecider(inCharge: { name: string }): Decider {
  return ruleDecider(`${inCharge.name}’s answer to the raise, or ${NO_ANSWER}`);
}

/** The policy's own decision (allow or deny, no one asked), as the mode and toggles made it. */
export function policyDecider(verdict: CallDecision, mode: Mode): Decider {
  if (verdict.decision !== 'deny' || verdict.by === 'mode') return ruleDecider(`the mode ${mode}`);
  return verdict.permission === undefined
    ? ruleDecider('the policy (no desktop yet)')
    : ruleDecider(`the toggle “${PERMISSION_LABELS[verdict.permission]}” (off)`);
}

/** What the call's ending says about who decided it, when nobody noted it on the way. */
export interface CallEnding {
  decision: AuditDecision | null;
  /** Noted where known: the policy, a standing permission, an approval, the MCP client. */
  noted: Decider | undefined;
  /** The audit outcome ("ok", "denied_by_person", "no_answer", "cancelled", …). */
  outcome: string;
  /** The person in charge of the desktop (only their windows answer approvals). */
  inCharge: { id: string; name: string } | undefined;
  /** The reason of the desktop's stop signal as it was when the call began, if it aborted since. */
  stopReason: unknown;
}

/** The call's decider, and its outcome as the audit keeps it. */
export interface DecidedEnding {
  decidedBy: Decider | null;
  /** The outcome, with a call the hub rejected because of Stop ('cancelled') read as 'stopped'. */
  outcome: string;
}

/**
 * Who or what decided the call (null when no decision was made: the call failed before the
 * policy — rate limit, bad arguments, no desktop), and how it ended.
 */
export function decidedEnding(call: CallEnding): DecidedEnding {
  const stopped =
    (call.outcome === 'stopped' || call.outcome === 'cancelled') && isStopCause(call.stopReason)
      ? call.stopReason
      : undefined;
  const outcome = stopped === undefined ? call.outcome : 'stopped';
  return { decidedBy: deciderOf({ ...call, outcome }, stopped), outcome };
}

function deciderOf(call: CallEnding, stopped: StopCause | undefined): Decider | null {
  if (call.decision === null) return null;
  // Stop while the person was asked: whoever pressed it denied the call. A call the mode or a
  // standing permission allowed stays theirs (it ended by Stop; the Stop's own entry says who).
  if (stopped !== undefined && (call.decision === 'confirm' || call.noted === undefined))
    return stopDecider(stopped);
  if (call.noted !== undefined) return call.noted;
  if (call.decision !== 'confirm') return null;
  switch (call.outcome) {
    case 'ok':
    case 'denied_by_person':
      // Only the windows of the person in charge can answer.
      return call.inCharge === undefined ? null : personDecider(call.inCharge);
    case 'no_answer':
      return ruleDecider(NO_ANSWER);
    case 'withdrawn':
      return ruleDecider('withdrawn before an answer');
    case 'viewer_unavailable':
      return ruleDecider('no viewer window open to ask in');
    case 'timeout':
      return ruleDecider('the bridge’s time limit');
    case 'cancelled':
      return ruleDecider('the AI client (it cancelled the call)');
    case 'permission_denied':
      return ruleDecider('the policy (the mode or a toggle changed while it waited)');
    default:
      return null;
  }
}
