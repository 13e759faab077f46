// request_annotation's finishing step: the person's answer goes back to the AI as the tool's
// result (unchanged), and into the audit log as an entry of its own — a teach_answer, the
// person's act as an approval is, naming the desktop — so the recording's event track, the
// player's event list and the AI's timeline show what the person pointed out
// (recordings/auditEvents.ts). The notes are the person's text: the audit keeps them only when
// they keep typed text (Settings), as it does typed text.
import type { Annotation, ToolArgs, ToolViewerResult } from '@overlay-companion/protocol';
import type { ToolContext } from '../toolkit.js';
import { relayTool } from './relayTool.js';

type Answer = ToolViewerResult<'request_annotation'>;

/** How a teach request ended, named as an approval's outcome is (planeAudit.ts). */
export type TeachOutcome = 'answered' | 'declined' | 'no_answer';

/**
 * Done is `completed`; Cancel returns nothing before the time is up; the time running out
 * returns what was drawn (maybe nothing) once timeout_ms passed. The viewer's clock and ours
 * differ by rounding, so a Cancel in the last TIMER_SLACK_MS reads as no answer.
 */
const TIMER_SLACK_MS = 1_000;

export function teachOutcome(answer: Answer, timeoutMs: number): TeachOutcome {
  if (answer.completed) return 'answered';
  if (answer.annotations.length > 0 || answer.waited_ms + TIMER_SLACK_MS >= timeoutMs) {
    return 'no_answer';
  }
  return 'declined';
}

/** A note as the audit keeps it: as typed, or its length only (the audit's redaction). */
function noteKept(note: string | undefined, keepText: boolean): { note?: string } {
  if (note === undefined) return {};
  return { note: keepText ? note : `[redacted: ${[...note].length} characters]` };
}

/**
 * The audit entry's summary: the AI's question and what the person pointed out, as JSON in the
 * tool result's own field names. Bounded by the result's schema (at most MAX_ANNOTATIONS items,
 * each note at most MAX_ANNOTATION_NOTE_CHARS), so nothing is cut: the event track reads it back.
 */
export function teachAnswerSummary(prompt: string, answer: Answer, keepText: boolean): string {
  const annotations = answer.annotations.map((item: Annotation): Annotation => ({
    ...item,
    ...noteKept(item.note, keepText),
  }));
  return JSON.stringify({ prompt, completed: answer.completed, annotations });
}

function recordAnswer(
  answer: Answer,
  args: ToolArgs<'request_annotation'>,
  ctx: ToolContext,
): void {
  const { plane } = ctx;
  // The control window that answered is the person in charge's.
  const person = plane.inCharge();
  ctx.audit.record({
    kind: 'teach_answer',
    actor: 'person',
    personId: person.id,
    personName: person.name,
    tool: 'request_annotation',
    summary: teachAnswerSummary(args.prompt, answer, plane.permissions().audit_typed_text),
    outcome: teachOutcome(answer, args.timeout_ms),
    durationMs: answer.waited_ms,
    detail: `desktop ${plane.desktopName}`,
    desktopId: plane.desktopId,
  });
}

export const requestAnnotation = relayTool('request_annotation', (answer, args, ctx) => {
  recordAnswer(answer, args, ctx);
  return { structured: answer };
});
