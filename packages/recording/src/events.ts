// The event track: what happened during a recorded session besides the picture, one JSON line
// per event beside the recording (`<id>.events.jsonl`), each `{ t, kind, ... }` with `t` in epoch
// milliseconds on the recording's clock. The schema is here, as a zod discriminated union on
// `kind`, so the writer, the reader, the export and the bridge agree on one shape.
//
// Redaction is not done here: the recording package writes what it is given. The caller (the
// bridge) passes tool arguments, typed text and teach answers already redacted the way the audit
// redacts them.
import { z } from 'zod';

const rect = z.object({
  x: z.number(),
  y: z.number(),
  width: z.number().nonnegative(),
  height: z.number().nonnegative(),
});

const base = { t: z.number() };

/** One thing the person pointed out in teach mode: a rectangle or a point, with their note. */
const teachMark = z.discriminatedUnion('kind', [
  rect.extend({ kind: z.literal('rect'), note: z.string().optional() }),
  z.object({ kind: z.literal('point'), x: z.number(), y: z.number(), note: z.string().optional() }),
]);

export const RecordingEventSchema = z.discriminatedUnion('kind', [
  /** An overlay appeared on the desktop (drawn by the AI), in desktop pixels. */
  z.object({
    ...base,
    kind: z.literal('overlay.drawn'),
    id: z.string(),
    rect,
    label: z.string().optional(),
    color: z.string().optional(),
  }),
  z.object({ ...base, kind: z.literal('overlay.removed'), id: z.string() }),
  /** An AI action: the tool, its arguments as the audit redacts them, why, and what was decided. */
  z.object({
    ...base,
    kind: z.literal('ai.action'),
    id: z.string(),
    tool: z.string(),
    args: z.record(z.string(), z.unknown()),
    intent: z.string().optional(),
    decision: z.enum(['allowed', 'approved', 'denied', 'stopped', 'failed']),
    /** The audit's own decision (allow, standing, confirm, deny), so a card words it as the audit does. */
    auditDecision: z.enum(['allow', 'standing', 'confirm', 'deny']).optional(),
    approvedBy: z.string().optional(),
    /** Who or what decided it, as the audit names them (a person, or the rule in words). */
    decidedBy: z.string().optional(),
    /** Where the action clicked or pointed, in desktop pixels. */
    point: z.object({ x: z.number(), y: z.number() }).optional(),
    durationMs: z.number().nonnegative().optional(),
    outcome: z.string().optional(),
  }),
  z.object({
    ...base,
    kind: z.literal('approval'),
    actionId: z.string(),
    decision: z.enum(['approved', 'denied', 'expired']),
    by: z.string().optional(),
  }),
  z.object({ ...base, kind: z.literal('stop'), by: z.string().optional() }),
  z.object({ ...base, kind: z.literal('takeover'), by: z.string().optional() }),
  z.object({ ...base, kind: z.literal('handback'), by: z.string().optional() }),
  /**
   * The person's answer to the AI's request_annotation (teach mode): the AI's question, the
   * answer in one sentence, how it ended (answered, declined, no_answer), who answered, and what
   * they pointed out in desktop pixels (notes redacted by the caller).
   */
  z.object({
    ...base,
    kind: z.literal('teach.answer'),
    question: z.string().optional(),
    answer: z.string(),
    outcome: z.string().optional(),
    by: z.string().optional(),
    annotations: z.array(teachMark).optional(),
  }),
  z.object({ ...base, kind: z.literal('mode'), mode: z.string(), by: z.string().optional() }),
  /** The charge of the desktop's AI moved from one person to another (`by`: who moved it). */
  z.object({
    ...base,
    kind: z.literal('charge'),
    from: z.string(),
    to: z.string(),
    by: z.string().optional(),
  }),
  /** The privacy masks in force from `t` on (empty: none). Written by the recorder itself. */
  z.object({ ...base, kind: z.literal('masks'), rects: z.array(rect) }),
  /** The recording has no picture from `from` to `to` (written by the recorder). */
  z.object({
    ...base,
    kind: z.literal('gap'),
    from: z.number(),
    to: z.number(),
    reason: z.string(),
  }),
  /** The recording stopped writing (the disk failed or the recorder fell behind). */
  z.object({ ...base, kind: z.literal('recording.stopped'), reason: z.string() }),
  /**
   * The session goes on in another recording (the bridge's retention rotated it): in the one
   * ended, why and the next one's id; in the new one, the previous one's id.
   */
  z.object({
    ...base,
    kind: z.literal('recording.rotated'),
    reason: z.string().optional(),
    previous: z.string().optional(),
    next: z.string().optional(),
  }),
]);

export type RecordingEvent = z.infer<typeof RecordingEventSchema>;
export type RecordingEventKind = RecordingEvent['kind'];
