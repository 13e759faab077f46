// The recording's event track, read off the audit log: every audited action of a desktop (the
// one place each is decided and written) becomes an event of that desktop's recording — each AI
// tool call with its arguments as the audit summarized them, its intent, decision, who approved
// and outcome; approvals; the person's teach answers (what they pointed out); Stop; mode changes;
// moves of the charge. Entries that name no desktop (sign-ins, account changes) are not events.
//
// Typed text, clipboard contents and teach notes are always redacted here, even when the person in charge
// keeps them in their own audit log: the audit shows each person their own entries, while a
// recording is watched by everyone who may see the desktop (a view grant included).
import { isToolName, toolDefinitions } from '@overlay-companion/protocol';
import type { RecordingEventInput } from '@overlay-companion/recording';
import type { NewAuditEntry } from '../store/types.js';

/** Tools whose x/y arguments are where the action pointed (the player marks that point). */
const POINTING = new Set(['click_at', 'mouse_move', 'drag', 'scroll']);

/** Audit outcomes of a call the person (or the policy) refused. */
const DENIED = new Set(['denied_by_person', 'permission_denied', 'no_answer', 'withdrawn']);

let sequence = 0;

export function recordingEventsOf(
  entry: NewAuditEntry,
  intent: string | undefined,
): RecordingEventInput[] {
  const t = entry.at;
  const by = entry.personName ?? undefined;
  switch (entry.kind) {
    case 'tool_call': {
      const args = withoutText(entry.tool ?? '', argumentsOf(entry.summary));
      const x = args.x;
      const y = args.y;
      const point =
        POINTING.has(entry.tool ?? '') && typeof x === 'number' && typeof y === 'number'
          ? { x, y }
          : undefined;
      sequence += 1;
      return [
        {
          t,
          kind: 'ai.action',
          id: `${t.toString(36)}-${sequence.toString(36)}`,
          tool: entry.tool ?? '',
          args,
          ...(intent === undefined ? {} : { intent }),
          decision: decisionOf(entry),
          ...(entry.decision == null ? {} : { auditDecision: entry.decision }),
          ...(entry.approvedBy == null ? {} : { approvedBy: entry.approvedBy }),
          ...(entry.decidedBy == null ? {} : { decidedBy: entry.decidedBy }),
          ...(point === undefined ? {} : { point }),
          ...(entry.durationMs == null ? {} : { durationMs: Math.max(0, entry.durationMs) }),
          ...(entry.outcome == null ? {} : { outcome: entry.outcome }),
        },
      ];
    }
    case 'approval':
      return [
        {
          t,
          kind: 'approval',
          actionId: '',
          decision:
            entry.outcome === 'approved'
              ? 'approved'
              : entry.outcome === 'declined'
                ? 'denied'
                : 'expired',
          ...(by === undefined ? {} : { by }),
        },
      ];
    case 'teach_answer':
      return [teachAnswerEvent(entry)];
    case 'stop':
      return [{ t, kind: 'stop', ...(by === undefined ? {} : { by }) }];
    case 'mode_change': {
      // The detail line reads "<from> → <to> … (<source>) on <desktop>".
      const mode = /→ (\S+)/.exec(entry.detail ?? '')?.[1];
      if (mode === undefined) return [];
      return [{ t, kind: 'mode', mode, ...(by === undefined ? {} : { by }) }];
    }
    case 'desktop_changed': {
      // A move of the charge (mcp/planeAudit.ts): "charge of <desktop>: <from> → <to>".
      const moved = CHARGE_DETAIL.exec(entry.detail ?? '');
      if (moved?.[1] === undefined || moved[2] === undefined) return [];
      return [
        { t, kind: 'charge', from: moved[1], to: moved[2], ...(by === undefined ? {} : { by }) },
      ];
    }
    default:
      return [];
  }
}

type TeachAnswerEvent = Extract<RecordingEventInput, { kind: 'teach.answer' }>;
type TeachMark = NonNullable<TeachAnswerEvent['annotations']>[number];

/**
 * A teach answer (mcp/tools/teach.ts wrote its summary as JSON: the AI's prompt, completed, the
 * annotations): what the person pointed out, every note redacted — like typed text, whatever the
 * audit kept for its owner. A summary that does not read back keeps only the outcome.
 */
function teachAnswerEvent(entry: NewAuditEntry): TeachAnswerEvent {
  const summary = argumentsOf(entry.summary);
  const question = typeof summary.prompt === 'string' ? summary.prompt : undefined;
  const marks = Array.isArray(summary.annotations)
    ? summary.annotations.flatMap((item: unknown) => teachMarkOf(item) ?? [])
    : [];
  const by = entry.personName ?? undefined;
  return {
    t: entry.at,
    kind: 'teach.answer',
    ...(question === undefined ? {} : { question }),
    answer: teachSentence(entry.outcome ?? '', marks),
    ...(entry.outcome == null ? {} : { outcome: entry.outcome }),
    ...(by === undefined ? {} : { by }),
    annotations: marks,
  };
}

function teachMarkOf(item: unknown): TeachMark | undefined {
  if (typeof item !== 'object' || item === null) return undefined;
  const { kind, x, y, width, height, note } = item as Record<string, unknown>;
  if (typeof x !== 'number' || typeof y !== 'number') return undefined;
  const redacted = typeof note === 'string' ? { note: redactedText(note) } : {};
  if (kind === 'point') return { kind, x, y, ...redacted };
  if (kind !== 'rect' || typeof width !== 'number' || typeof height !== 'number') return undefined;
  return { kind, x, y, width: Math.max(0, width), height: Math.max(0, height), ...redacted };
}

/** "pointed out 2 items: rect 30×40 at 10,20; point 5,6" — the answer in one line. */
function teachSentence(outcome: string, marks: readonly TeachMark[]): string {
  const items = marks
    .map((m) =>
      m.kind === 'rect' ? `rect ${m.width}×${m.height} at ${m.x},${m.y}` : `point ${m.x},${m.y}`,
    )
    .join('; ');
  const count = `${marks.length} item${marks.length === 1 ? '' : 's'}`;
  if (outcome === 'answered') return `pointed out ${count}${items === '' ? '' : `: ${items}`}`;
  if (outcome === 'declined') return 'cancelled the request';
  if (outcome === 'no_answer')
    return `did not finish in time${marks.length === 0 ? '' : `; had drawn ${count}: ${items}`}`;
  return `answered (${outcome || 'unknown'})`;
}

/** The detail line of a charge move, from whom to whom (a desktop name may hold ": "). */
const CHARGE_DETAIL = /^charge of .*: (.+?) → (.+)$/;

function decisionOf(
  entry: NewAuditEntry,
): Extract<RecordingEventInput, { kind: 'ai.action' }>['decision'] {
  const outcome = entry.outcome ?? 'ok';
  if (outcome === 'ok') return entry.decision === 'confirm' ? 'approved' : 'allowed';
  if (outcome === 'stopped' || outcome === 'cancelled') return 'stopped';
  if (entry.decision === 'deny' || DENIED.has(outcome)) return 'denied';
  return 'failed';
}

/** The audit's summary back as an object (what the audit kept; a cut summary as its text). */
function argumentsOf(summary: string | null | undefined): Record<string, unknown> {
  if (summary == null || summary === '') return {};
  try {
    const value: unknown = JSON.parse(summary);
    if (typeof value === 'object' && value !== null && !Array.isArray(value))
      return value as Record<string, unknown>;
  } catch {
    // A summary cut at MAX_SUMMARY_CHARS is no longer JSON: keep it as the audit shows it.
  }
  return { summary };
}

/**
 * The arguments with every sensitive one redacted (the audit may have kept them for its owner),
 * keeping their length as the audit does; a summary cut short (no longer JSON) of a tool that
 * carries text is dropped whole, since the text may be in it.
 */
/** What the audit writes in place of a value (audit/summarize.ts); text the AI typed may not pose as it. */
const AUDIT_REDACTION = /^\[redacted(: \d+ characters)?\]$/;

/** The person's text as the event track keeps it: its length only (the audit's redaction). */
function redactedText(text: string): string {
  return AUDIT_REDACTION.test(text) ? text : `[redacted: ${[...text].length} characters]`;
}

function withoutText(tool: string, args: Record<string, unknown>): Record<string, unknown> {
  const sensitive = isToolName(tool) ? (toolDefinitions[tool].sensitiveArgs ?? []) : [];
  if (sensitive.length === 0) return args;
  if (
    Object.keys(args).length === 1 &&
    typeof args.summary === 'string' &&
    !sensitive.includes('summary')
  ) {
    return { summary: '[redacted: arguments cut short]' };
  }
  const copy = { ...args };
  for (const field of sensitive) {
    const value = copy[field];
    if (value === undefined || (typeof value === 'string' && AUDIT_REDACTION.test(value))) {
      continue;
    }
    copy[field] = typeof value === 'string' ? redactedText(value) : '[redacted]';
  }
  return copy;
}
