import { describe, expect, it } from 'vitest';
import type { PlayerEvent } from './recordingsWire.js';
import {
  IDLE_LEAD_MS,
  POINTER_MS,
  aiActions,
  cardMark,
  eventIndexAt,
  eventSentence,
  idleStretches,
  overlaysAt,
  pointerAt,
  seekMarkers,
  skipIdle,
  teachAnswersByAction,
  teachMarks,
} from './timeline.js';

const rect = { x: 10, y: 20, width: 100, height: 50 };
const events: PlayerEvent[] = [
  { t: 1_000, kind: 'overlay.drawn', id: 'a', rect, label: 'Save', color: '#00ff00' },
  { t: 2_000, kind: 'overlay.drawn', id: 'b', rect: { ...rect, x: 300 } },
  {
    t: 3_000,
    kind: 'ai.action',
    id: 'act1',
    tool: 'click_at',
    decision: 'approved',
    auditDecision: 'confirm',
    approvedBy: 'Ada',
    point: { x: 40, y: 45 },
  },
  { t: 3_500, kind: 'approval', actionId: 'act1', decision: 'approved', by: 'Ada' },
  { t: 4_000, kind: 'overlay.removed', id: 'a' },
  { t: 6_000, kind: 'ai.action', id: 'act2', tool: 'type_text', decision: 'denied' },
  { t: 7_000, kind: 'stop', by: 'Ada' },
  { t: 7_500, kind: 'other', name: 'masks' },
];

describe('overlaysAt', () => {
  it('shows an overlay drawn at T from T until it was removed', () => {
    expect(overlaysAt(events, 999)).toEqual([]);
    expect(overlaysAt(events, 1_000).map((o) => o.overlay_id)).toEqual(['a']);
    expect(overlaysAt(events, 3_999).map((o) => o.overlay_id)).toEqual(['a', 'b']);
    expect(overlaysAt(events, 4_000).map((o) => o.overlay_id)).toEqual(['b']);
  });

  it('keeps the drawn colour, label and rectangle, and the layer default colour otherwise', () => {
    const [a, b] = overlaysAt(events, 2_000);
    expect(a).toMatchObject({ bounds: rect, color: '#00ff00', label: 'Save' });
    expect(b?.color).toBe('red');
    expect(b && 'label' in b).toBe(false);
  });

  it('puts a redrawn overlay on top', () => {
    const redrawn: PlayerEvent[] = [...events.slice(0, 2), { ...events[0]!, t: 2_500 }];
    expect(overlaysAt(redrawn, 3_000).map((o) => o.overlay_id)).toEqual(['b', 'a']);
  });
});

describe('pointerAt', () => {
  it('marks an AI click at its point for POINTER_MS', () => {
    expect(pointerAt(events, 2_999)).toBeNull();
    expect(pointerAt(events, 3_000)).toMatchObject({ x: 40, y: 45 });
    expect(pointerAt(events, 3_000 + POINTER_MS - 1)?.action.id).toBe('act1');
    expect(pointerAt(events, 3_000 + POINTER_MS)).toBeNull();
  });

  it('ignores actions without a point', () => {
    expect(pointerAt(events, 6_100)).toBeNull();
  });
});

describe('seekMarkers', () => {
  it('marks AI actions, approvals and Stop where they are along the bar', () => {
    const markers = seekMarkers(events, 0, 10_000);
    expect(markers.map((m) => [m.kind, m.at])).toEqual([
      ['action', 0.3],
      ['approval', 0.35],
      ['denied', 0.6],
      ['stop', 0.7],
    ]);
    expect(markers[0]?.label).toBe('AI: click_at at 40, 45 — Asked · approved by Ada');
  });

  it('keeps markers on the bar when events fall outside the loaded span', () => {
    expect(seekMarkers(events, 5_000, 6_500).map((m) => m.at)).toEqual([0, 0, 2 / 3, 1]);
  });
});

describe('idle stretches', () => {
  it('finds stretches over 5 s with no event and no frame, the ends included', () => {
    const times = [2_000, 2_500, 9_000, 9_100];
    expect(idleStretches(times, 0, 20_000)).toEqual([
      { from: 2_500, to: 9_000 },
      { from: 9_100, to: 20_000 },
    ]);
    expect(idleStretches([], 0, 4_000)).toEqual([]);
    // Up to an open end: the idle tail after the last activity is skipped to the end.
    expect(idleStretches([1_000], 0, Infinity)).toEqual([{ from: 1_000, to: Infinity }]);
    expect(skipIdle(7_000, idleStretches([1_000], 0, Infinity))).toBe(Infinity);
  });

  it('skips to just before the next activity, and leaves busy moments alone', () => {
    const stretches = [{ from: 2_500, to: 9_000 }];
    expect(skipIdle(2_400, stretches)).toBe(2_400);
    expect(skipIdle(2_500, stretches)).toBe(9_000 - IDLE_LEAD_MS);
    expect(skipIdle(8_000, stretches)).toBe(9_000 - IDLE_LEAD_MS);
    expect(skipIdle(8_600, stretches)).toBe(8_600);
  });
});

describe('the event list', () => {
  it('finds the line the player is at', () => {
    expect(eventIndexAt(events, 0)).toBe(-1);
    expect(eventIndexAt(events, 3_200)).toBe(2);
    expect(eventIndexAt(events, 100_000)).toBe(events.length - 1);
  });

  it('says what each event was', () => {
    expect(events.map(eventSentence)).toEqual([
      'Overlay drawn: “Save”',
      'Overlay drawn',
      'AI: click_at at 40, 45 — Asked · approved by Ada',
      'Approval: approved by Ada',
      'Overlay removed',
      // A recording made before the track kept the audit's decision: its own word.
      'AI: type_text — Denied',
      'Stop by Ada',
      'masks',
    ]);
    expect(eventSentence({ t: 0, kind: 'gap', from: 1_000, to: 13_000, reason: 'disk full' })).toBe(
      'Not recorded for 12 s: disk full',
    );
  });
});

describe('timeline cards', () => {
  it('lists the AI actions in order', () => {
    expect(aiActions(events).map((e) => e.id)).toEqual(['act1', 'act2']);
  });

  it('marks a click at its point, as a fraction of the screen', () => {
    const [click] = aiActions(events);
    expect(click && cardMark(click, 200, 100)).toEqual({
      kind: 'point',
      x: 40.5 / 200,
      y: 45.5 / 100,
    });
  });

  it("marks an overlay's rectangle from its arguments, kept on the screen", () => {
    const overlay = {
      t: 1,
      kind: 'ai.action' as const,
      id: 'o',
      tool: 'draw_overlay',
      args: { x: 150, y: 50, width: 100, height: 25 },
      decision: 'allowed',
    };
    expect(cardMark(overlay, 200, 100)).toEqual({
      kind: 'area',
      x: 0.75,
      y: 0.5,
      width: 0.25,
      height: 0.25,
    });
  });

  it('marks nothing without a place on screen or a known screen size', () => {
    const [click, typed] = aiActions(events);
    expect(typed && cardMark(typed, 200, 100)).toBeNull();
    expect(click && cardMark(click, 0, 0)).toBeNull();
    const cut = {
      t: 1,
      kind: 'ai.action' as const,
      id: 'o',
      tool: 'draw_overlay',
      args: { summary: 'x' },
      decision: 'allowed',
    };
    expect(cardMark(cut, 200, 100)).toBeNull();
  });
});

describe("the person's teach answers", () => {
  const ask = (id: string, t: number, durationMs: number, outcome = 'ok'): PlayerEvent => ({
    t,
    kind: 'ai.action',
    id,
    tool: 'request_annotation',
    decision: 'allowed',
    durationMs,
    outcome,
  });
  const answer = (t: number, by = 'Ada'): PlayerEvent => ({
    t,
    kind: 'teach.answer',
    question: 'Show me Save',
    answer: 'pointed out 2 items: rect 30×40 at 10,20; point 5,6',
    outcome: 'answered',
    by,
    annotations: [
      { kind: 'rect', x: 150, y: 50, width: 100, height: 25, note: '[redacted: 4 characters]' },
      { kind: 'point', x: 40, y: 45 },
    ],
  });

  it('belong to the request that was running when the person answered', () => {
    // The bridge writes the answer as it comes, the request (stamped at its start) as it ends.
    const track: PlayerEvent[] = [
      ask('first', 1_000, 5_000),
      // Refused at once while the first was open: no answer is its.
      ask('busy', 2_000, 3, 'rate_limited'),
      answer(5_900),
      ask('second', 10_000, 2_000),
      answer(11_990, 'Bo'),
      // A request that got no answer (Stop), and an answer no request fits.
      ask('stopped', 20_000, 500, 'cancelled'),
      answer(40_000),
    ].sort((a, b) => a.t - b.t);
    const answers = teachAnswersByAction(track);
    expect([...answers.keys()]).toEqual(['first', 'second']);
    expect(answers.get('first')?.t).toBe(5_900);
    expect(answers.get('second')).toMatchObject({ by: 'Bo' });
  });

  it('mark what the person pointed out on the thumbnail, nothing while the size is unknown', () => {
    const event = answer(1);
    if (event.kind !== 'teach.answer') throw new Error('not an answer');
    expect(teachMarks(event, 200, 100)).toEqual([
      { kind: 'area', x: 0.75, y: 0.5, width: 0.25, height: 0.25 },
      { kind: 'point', x: 40.5 / 200, y: 45.5 / 100 },
    ]);
    expect(teachMarks(event, 0, 0)).toEqual([]);
    expect(teachMarks({ ...event, annotations: undefined }, 200, 100)).toEqual([]);
  });

  it('are listed beside the player with who answered and what they pointed out', () => {
    expect(eventSentence(answer(1))).toBe(
      'Teach answer: Ada pointed out 2 items: rect 30×40 at 10,20; point 5,6',
    );
    expect(eventSentence({ t: 1, kind: 'teach.answer', answer: 'cancelled the request' })).toBe(
      'Teach answer: The person cancelled the request',
    );
  });
});
