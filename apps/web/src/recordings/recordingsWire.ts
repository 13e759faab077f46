// What the web reads of the bridge's recordings API (GET /api/recordings, …/:id/events), parsed
// where it arrives. The event track's own schema lives
// in packages/recording (events.ts), which the web may not import (the import fences): this is the
// reader's view of it — only the fields the player shows, and an event of a kind it does not know
// (a newer bridge) is kept as `other` instead of failing the whole track.
import { AuditDecision } from '@overlay-companion/protocol';
import { z } from 'zod';

/** The recordings API (the bridge's side is apps/bridge's recordings routes). */
export const RECORDINGS_API = '/api/recordings';

export const recordingPath = (id: string, rest = ''): string =>
  `${RECORDINGS_API}/${encodeURIComponent(id)}${rest}`;

const Rect = z.object({
  x: z.number(),
  y: z.number(),
  width: z.number().nonnegative(),
  height: z.number().nonnegative(),
});
export type RecordingRect = z.infer<typeof Rect>;

const Gap = z.object({ from: z.number(), to: z.number(), reason: z.string() });
export type RecordingGap = z.infer<typeof Gap>;

export const RecordingSummary = z.object({
  id: z.string().min(1),
  desktop: z.object({ id: z.string(), name: z.string() }),
  started_at: z.number(),
  /** Null while recording. */
  ended_at: z.number().nullable(),
  bytes: z.number().nonnegative(),
  duration_ms: z.number().nonnegative(),
  gaps: z.array(Gap),
  live: z.boolean(),
  /** Why it cannot be played from this bridge (kept on an S3 store it was started without). */
  unavailable: z.string().optional(),
});
export type RecordingSummary = z.infer<typeof RecordingSummary>;

export const RecordingList = z.object({ recordings: z.array(RecordingSummary) });
export type RecordingList = z.infer<typeof RecordingList>;

const Point = z.object({ x: z.number(), y: z.number() });
const by = z.string().optional();
const TeachMark = z.discriminatedUnion('kind', [
  Rect.extend({ kind: z.literal('rect'), note: z.string().optional() }),
  Point.extend({ kind: z.literal('point'), note: z.string().optional() }),
]);
export type TeachMark = z.infer<typeof TeachMark>;

const KnownEvent = z.discriminatedUnion('kind', [
  z.object({
    t: z.number(),
    kind: z.literal('overlay.drawn'),
    id: z.string(),
    rect: Rect,
    label: z.string().optional(),
    color: z.string().optional(),
  }),
  z.object({ t: z.number(), kind: z.literal('overlay.removed'), id: z.string() }),
  z.object({
    t: z.number(),
    kind: z.literal('ai.action'),
    id: z.string(),
    tool: z.string(),
    args: z.record(z.string(), z.unknown()).optional(),
    intent: z.string().optional(),
    decision: z.string(),
    /** The audit's decision (absent in recordings made before it was kept; unknown: dropped). */
    auditDecision: AuditDecision.optional().catch(undefined),
    approvedBy: z.string().optional(),
    decidedBy: z.string().optional(),
    point: Point.optional(),
    durationMs: z.number().optional(),
    outcome: z.string().optional(),
  }),
  z.object({
    t: z.number(),
    kind: z.literal('approval'),
    actionId: z.string(),
    decision: z.string(),
    by,
  }),
  z.object({ t: z.number(), kind: z.literal('stop'), by }),
  z.object({ t: z.number(), kind: z.literal('takeover'), by }),
  z.object({ t: z.number(), kind: z.literal('handback'), by }),
  z.object({
    t: z.number(),
    kind: z.literal('teach.answer'),
    question: z.string().optional(),
    answer: z.string(),
    /** answered, declined (Cancel), no_answer (the time ran out). */
    outcome: z.string().optional(),
    by,
    /** What the person pointed out, in desktop pixels (notes redacted by the bridge). */
    annotations: z.array(TeachMark).optional(),
  }),
  z.object({ t: z.number(), kind: z.literal('mode'), mode: z.string(), by }),
  z.object({ t: z.number(), kind: z.literal('charge'), from: z.string(), to: z.string(), by }),
  z.object({
    t: z.number(),
    kind: z.literal('gap'),
    from: z.number(),
    to: z.number(),
    reason: z.string(),
  }),
  z.object({ t: z.number(), kind: z.literal('recording.stopped'), reason: z.string() }),
]);
type KnownEvent = z.infer<typeof KnownEvent>;

/** An event the player does not show (masks, or a kind newer than this page). */
export interface OtherEvent {
  t: number;
  kind: 'other';
  name: string;
}

export type PlayerEvent = KnownEvent | OtherEvent;
export type AiActionEvent = Extract<PlayerEvent, { kind: 'ai.action' }>;
export type TeachAnswerEvent = Extract<PlayerEvent, { kind: 'teach.answer' }>;

const AnyEvent = z.object({ t: z.number(), kind: z.string() });

/** GET …/events: each event parsed on its own, sorted by time. */
export const RecordingEvents = z
  .object({ events: z.array(z.unknown()) })
  .transform(({ events }, context) => {
    const parsed: PlayerEvent[] = [];
    for (const raw of events) {
      const known = KnownEvent.safeParse(raw);
      if (known.success) {
        parsed.push(known.data);
        continue;
      }
      const any = AnyEvent.safeParse(raw);
      if (!any.success) {
        context.addIssue({ code: 'custom', message: 'an event without a time or kind' });
        return z.NEVER;
      }
      parsed.push({ t: any.data.t, kind: 'other', name: any.data.kind });
    }
    return parsed.sort((a, b) => a.t - b.t);
  });

/** GET /api/recordings/storage (admins): what the recordings take, and the limits that keep them. */
export const RECORDINGS_STORAGE_API = `${RECORDINGS_API}/storage`;

const DesktopRef = z.object({ id: z.string(), name: z.string() });
const Size = z.number().int().nonnegative();

export const RecordingStorage = z.object({
  location: z.enum(['local', 's3']),
  total_bytes: Size,
  count: Size,
  live_count: Size,
  limits: z.object({
    max_age_days: z.number().int().positive().nullable(),
    max_total_bytes: Size.nullable(),
    max_desktop_bytes: Size.nullable(),
    min_free_bytes: Size,
  }),
  /** Why recordings are not writing now for lack of free space (null: they are). */
  held: z.string().nullable(),
  disk: z.object({ free_bytes: Size, size_bytes: Size }).nullable(),
  oldest: z
    .object({ id: z.string(), desktop: DesktopRef, started_at: z.number(), bytes: Size })
    .nullable(),
  desktops: z.array(
    z.object({
      desktop: DesktopRef,
      bytes: Size,
      count: Size,
      live: Size,
      oldest_started_at: z.number(),
    }),
  ),
  people: z.array(
    z.object({
      /** Null: recordings of desktops that had no owner on record. */
      person: z.object({ id: z.string(), name: z.string() }).nullable(),
      bytes: Size,
      count: Size,
    }),
  ),
});
export type RecordingStorage = z.infer<typeof RecordingStorage>;
