// The event track read at a moment of the recording, pure so it is tested without a player: which
// overlays are on screen at t (drawn at T, shown from T until removed), where the AI's pointer is
// (a point action marks its place for POINTER_MS), the seek bar's markers (AI actions, approvals,
// Stop), the idle stretches "skip idle" jumps over, the sentence each event is listed with, and
// which AI request each teach answer of the person answered (its timeline card shows it).
import type { Overlay } from '@overlay-companion/protocol';
import type { AiActionEvent, PlayerEvent, TeachAnswerEvent } from './recordingsWire.js';
import { decisionText } from './actionDecision.js';

/** How long an AI click or point stays marked after it happened. */
export const POINTER_MS = 1_000;
/** A stretch with no event and no new frame for longer than this is idle. */
export const IDLE_MS = 5_000;
/** Skipping lands this long before the next activity, so the person sees it coming. */
export const IDLE_LEAD_MS = 500;

/** The overlay layer's default colour and opacity (draw_overlay's defaults). */
const DEFAULT_COLOR = 'red';
const DEFAULT_OPACITY = 0.5;

/** The overlays on screen at epoch-ms `t`, in the order they were drawn. */
export function overlaysAt(events: readonly PlayerEvent[], t: number): Overlay[] {
  const shown = new Map<string, Overlay>();
  for (const event of events) {
    if (event.t > t) break;
    if (event.kind === 'overlay.drawn') {
      shown.delete(event.id); // redrawn: moves to the top
      shown.set(event.id, {
        overlay_id: event.id,
        bounds: event.rect,
        color: event.color ?? DEFAULT_COLOR,
        opacity: DEFAULT_OPACITY,
        ...(event.label !== undefined ? { label: event.label } : {}),
        click_through: true,
        monitor_index: 0,
        created_at: event.t,
      });
    } else if (event.kind === 'overlay.removed') {
      shown.delete(event.id);
    }
  }
  return [...shown.values()];
}

export interface PointerMark {
  x: number;
  y: number;
  action: AiActionEvent;
}

/** The AI's pointer at `t`: the latest point action within POINTER_MS before it, if any. */
export function pointerAt(events: readonly PlayerEvent[], t: number): PointerMark | null {
  let mark: PointerMark | null = null;
  for (const event of events) {
    if (event.t > t) break;
    if (event.kind === 'ai.action' && event.point !== undefined && t - event.t < POINTER_MS) {
      mark = { x: event.point.x, y: event.point.y, action: event };
    }
  }
  return mark;
}

/** The AI's actions among the events, in order. */
export function aiActions(events: readonly PlayerEvent[]): AiActionEvent[] {
  return events.filter((event): event is AiActionEvent => event.kind === 'ai.action');
}

/** Tools whose x, y, width and height arguments are a rectangle on the desktop (an overlay). */
const RECT_TOOLS = new Set(['draw_overlay', 'update_overlay']);

/** What a timeline card marks on its thumbnail, in 0..1 of the screen: a point or an area. */
export type CardMark =
  | { kind: 'point'; x: number; y: number }
  | { kind: 'area'; x: number; y: number; width: number; height: number };

/**
 * Where an action's card marks its thumbnail: the click or pointing point, else an overlay's
 * rectangle (its arguments), as fractions of the `width` × `height` screen; null when the
 * action has no place on screen or the screen's size is unknown.
 */
export function cardMark(action: AiActionEvent, width: number, height: number): CardMark | null {
  if (width <= 0 || height <= 0) return null;
  if (action.point !== undefined) return pointMark(action.point, width, height);
  const { x, y, width: w, height: h } = action.args ?? {};
  if (!RECT_TOOLS.has(action.tool)) return null;
  if (typeof x !== 'number' || typeof y !== 'number') return null;
  if (typeof w !== 'number' || typeof h !== 'number') return null;
  return areaMark({ x, y, width: w, height: h }, width, height);
}

/** What the person pointed out in a teach answer, as marks on the `width` × `height` screen. */
export function teachMarks(answer: TeachAnswerEvent, width: number, height: number): CardMark[] {
  if (width <= 0 || height <= 0) return [];
  return (answer.annotations ?? []).map((item) =>
    item.kind === 'point' ? pointMark(item, width, height) : areaMark(item, width, height),
  );
}

/** The middle of desktop pixel (x, y) as fractions of the screen. */
function pointMark(p: { x: number; y: number }, width: number, height: number): CardMark {
  return { kind: 'point', x: (p.x + 0.5) / width, y: (p.y + 0.5) / height };
}

/** A desktop rectangle as fractions of the screen, cut to it. */
function areaMark(
  r: { x: number; y: number; width: number; height: number },
  width: number,
  height: number,
): CardMark {
  const clamp = (v: number) => Math.min(1, Math.max(0, v));
  const left = clamp(r.x / width);
  const top = clamp(r.y / height);
  return {
    kind: 'area',
    x: left,
    y: top,
    width: clamp((r.x + r.width) / width) - left,
    height: clamp((r.y + r.height) / height) - top,
  };
}

/**
 * The bridge writes a teach answer when the person answers, and the AI's request_annotation
 * action (stamped when the call began, with its duration) when the call ends just after: an
 * answer belongs to the call that was running at its moment, within this much of the call's end.
 */
const ANSWER_SLACK_MS = 1_000;

/**
 * Each teach answer's request, by the action's id: the latest request_annotation call that
 * ended well and was running at the answer's moment. Answers no call fits are left out.
 */
export function teachAnswersByAction(
  events: readonly PlayerEvent[],
): ReadonlyMap<string, TeachAnswerEvent> {
  // A call that failed (refused while another was open, stopped) got no answer.
  const requests = aiActions(events).filter(
    (a) => a.tool === 'request_annotation' && (a.outcome ?? 'ok') === 'ok',
  );
  const answers = new Map<string, TeachAnswerEvent>();
  for (const event of events) {
    if (event.kind !== 'teach.answer') continue;
    let best: AiActionEvent | undefined;
    for (const request of requests) {
      if (request.t > event.t || answers.has(request.id)) continue;
      const end = request.t + (request.durationMs ?? Infinity) + ANSWER_SLACK_MS;
      if (event.t <= end && (best === undefined || request.t >= best.t)) best = request;
    }
    if (best !== undefined) answers.set(best.id, event);
  }
  return answers;
}

/** A teach answer in words: "Ada pointed out 2 items: rect 30×40 at 10,20; point 5,6". */
export function teachAnswerText(answer: TeachAnswerEvent): string {
  return `${answer.by ?? 'The person'} ${answer.answer}`;
}

export type MarkerKind = 'action' | 'denied' | 'approval' | 'stop';

export interface Marker {
  t: number;
  /** 0..1 along the seek bar. */
  at: number;
  kind: MarkerKind;
  label: string;
}

/** Seek bar markers for AI actions, approvals and Stop between `start` and `end` (epoch ms). */
export function seekMarkers(events: readonly PlayerEvent[], start: number, end: number): Marker[] {
  const span = Math.max(1, end - start);
  const markers: Marker[] = [];
  for (const event of events) {
    let kind: MarkerKind;
    if (event.kind === 'ai.action') {
      kind = event.decision === 'denied' || event.decision === 'stopped' ? 'denied' : 'action';
    } else if (event.kind === 'approval') kind = 'approval';
    else if (event.kind === 'stop') kind = 'stop';
    else continue;
    const at = Math.min(1, Math.max(0, (event.t - start) / span));
    markers.push({ t: event.t, at, kind, label: eventSentence(event) });
  }
  return markers;
}

export interface Stretch {
  from: number;
  to: number;
}

/**
 * Stretches longer than IDLE_MS with no event and no frame, between `start` and `end`: `times`
 * are the moments something happened (events and frames, any order).
 */
export function idleStretches(
  times: readonly number[],
  start: number,
  end: number,
  idleMs = IDLE_MS,
): Stretch[] {
  const sorted = [start, ...times.filter((t) => t > start && t < end), end].sort((a, b) => a - b);
  const stretches: Stretch[] = [];
  for (let i = 1; i < sorted.length; i++) {
    const from = sorted[i - 1] ?? start;
    const to = sorted[i] ?? end;
    if (to - from > idleMs) stretches.push({ from, to });
  }
  return stretches;
}

/** Where playback at `t` goes when skipping idle: past the idle stretch it is in, else `t`. */
export function skipIdle(t: number, stretches: readonly Stretch[]): number {
  for (const s of stretches) {
    const landing = s.to - IDLE_LEAD_MS;
    if (t >= s.from && t < landing) return landing;
  }
  return t;
}

/** The index of the last event at or before `t` (the list's current line); -1 when none. */
export function eventIndexAt(events: readonly PlayerEvent[], t: number): number {
  let index = -1;
  for (let i = 0; i < events.length; i++) {
    if ((events[i]?.t ?? Infinity) <= t) index = i;
    else break;
  }
  return index;
}

function byWhom(by: string | undefined): string {
  return by === undefined ? '' : ` by ${by}`;
}

/** The event as one line of the list beside the player. */
export function eventSentence(event: PlayerEvent): string {
  switch (event.kind) {
    case 'overlay.drawn':
      return `Overlay drawn${event.label !== undefined ? `: “${event.label}”` : ''}`;
    case 'overlay.removed':
      return 'Overlay removed';
    case 'ai.action': {
      const where = event.point !== undefined ? ` at ${event.point.x}, ${event.point.y}` : '';
      return `AI: ${event.tool}${where} — ${decisionText(event)}`;
    }
    case 'approval':
      return `Approval: ${event.decision}${byWhom(event.by)}`;
    case 'stop':
      return `Stop${byWhom(event.by)}`;
    case 'takeover':
      return `Took over${byWhom(event.by)}`;
    case 'handback':
      return `Handed back to the AI${byWhom(event.by)}`;
    case 'teach.answer':
      return `Teach answer: ${teachAnswerText(event)}`;
    case 'mode':
      return `Mode: ${event.mode}${byWhom(event.by)}`;
    case 'charge':
      return `In charge: ${event.to} (was ${event.from})${byWhom(event.by)}`;
    case 'gap':
      return `Not recorded for ${Math.round((event.to - event.from) / 1000)} s: ${event.reason}`;
    case 'recording.stopped':
      return `Recording stopped: ${event.reason}`;
    case 'other':
      return event.name;
    default: {
      const never: never = event;
      throw new Error(`unknown recording event ${JSON.stringify(never)}`);
    }
  }
}

/** The events the list beside the player shows (masks and unknown kinds are left out). */
export function listedEvents(events: readonly PlayerEvent[]): PlayerEvent[] {
  return events.filter((event) => event.kind !== 'other');
}
