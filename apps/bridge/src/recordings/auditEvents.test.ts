// The recording's events from audit entries: typed text is redacted even where the person in
// charge keeps it in their own audit (a recording is watched by everyone who may see the
// desktop), the audit's own redaction is kept as it is, text posing as a redaction is not
// trusted, and a cut summary of a tool that carries text is dropped whole; the person's teach
// answer (as mcp/tools/teach.ts writes it) is on the track with what they drew, notes redacted.
import { describe, expect, it } from 'vitest';
import { teachAnswerSummary } from '../mcp/tools/teach.js';
import type { NewAuditEntry } from '../store/types.js';
import { recordingEventsOf } from './auditEvents.js';

function call(tool: string, summary: string): NewAuditEntry {
  return {
    at: 1_000,
    kind: 'tool_call',
    actor: 'ai',
    personId: 'p',
    personName: 'Ada',
    tool,
    summary,
    decision: 'allow',
    outcome: 'ok',
  };
}

function argsOf(entry: NewAuditEntry): unknown {
  const [event] = recordingEventsOf(entry, undefined);
  return event !== undefined && 'args' in event ? event.args : undefined;
}

describe('recordingEventsOf', () => {
  it('redacts typed text the audit kept for its owner', () => {
    expect(argsOf(call('type_text', '{"text":"hunter2","typing_speed_wpm":300}'))).toEqual({
      text: '[redacted: 7 characters]',
      typing_speed_wpm: 300,
    });
  });

  it("keeps the audit's own redaction, and does not trust text posing as one", () => {
    expect(argsOf(call('type_text', '{"text":"[redacted: 9 characters]"}'))).toEqual({
      text: '[redacted: 9 characters]',
    });
    expect(argsOf(call('set_clipboard', '{"text":"[redacted] pin 4321"}'))).toEqual({
      text: '[redacted: 19 characters]',
    });
  });

  it('drops a cut summary of a tool that carries text, and keeps other tools as they are', () => {
    expect(argsOf(call('type_text', '{"text":"aaaa… [5000 more characters]'))).toEqual({
      summary: '[redacted: arguments cut short]',
    });
    expect(argsOf(call('click_at', '{"x":1,"y":2}'))).toEqual({ x: 1, y: 2 });
  });

  it("keeps the audit's own decision beside the collapsed one, so a card words it as the audit row does", () => {
    const [standing] = recordingEventsOf(
      { ...call('click_at', '{}'), decision: 'standing' },
      undefined,
    );
    expect(standing).toMatchObject({ decision: 'allowed', auditDecision: 'standing' });
    const [mode] = recordingEventsOf(call('click_at', '{}'), undefined);
    expect(mode).toMatchObject({ decision: 'allowed', auditDecision: 'allow' });
  });

  it('puts a move of the charge on the track, from whom to whom and by whom; other desktop changes not', () => {
    const moved = (detail: string): NewAuditEntry => ({
      at: 2_000,
      kind: 'desktop_changed',
      actor: 'person',
      personId: 'p',
      personName: 'Ada',
      outcome: 'ok',
      detail,
    });
    expect(recordingEventsOf(moved('charge of Office: PC: Ada → Bo Li'), undefined)).toEqual([
      { t: 2_000, kind: 'charge', from: 'Ada', to: 'Bo Li', by: 'Ada' },
    ]);
    expect(recordingEventsOf(moved('recording mode off'), undefined)).toEqual([]);
  });

  describe('a teach answer', () => {
    const answer = (summary: string, outcome: string): NewAuditEntry => ({
      at: 3_000,
      kind: 'teach_answer',
      actor: 'person',
      personId: 'p',
      personName: 'Ada',
      tool: 'request_annotation',
      summary,
      outcome,
    });
    const drawn = {
      completed: true,
      annotations: [
        {
          kind: 'rect' as const,
          x: 10,
          y: 20,
          width: 30,
          height: 40,
          note: 'pin 4321',
          monitor_index: 0,
        },
        { kind: 'point' as const, x: 5, y: 6, monitor_index: 0 },
      ],
      waited_ms: 900,
    };

    it('shows what the person drew, with every note redacted even where the audit kept it', () => {
      for (const keepText of [true, false]) {
        const summary = teachAnswerSummary('Show me Save', drawn, keepText);
        expect(summary.includes('pin 4321')).toBe(keepText);
        expect(recordingEventsOf(answer(summary, 'answered'), undefined)).toEqual([
          {
            t: 3_000,
            kind: 'teach.answer',
            question: 'Show me Save',
            answer: 'pointed out 2 items: rect 30×40 at 10,20; point 5,6',
            outcome: 'answered',
            by: 'Ada',
            annotations: [
              {
                kind: 'rect',
                x: 10,
                y: 20,
                width: 30,
                height: 40,
                note: '[redacted: 8 characters]',
              },
              { kind: 'point', x: 5, y: 6 },
            ],
          },
        ]);
      }
    });

    it('says when the person cancelled or did not answer in time', () => {
      const none = teachAnswerSummary(
        'Where?',
        { completed: false, annotations: [], waited_ms: 1 },
        false,
      );
      expect(recordingEventsOf(answer(none, 'declined'), undefined)).toMatchObject([
        {
          kind: 'teach.answer',
          answer: 'cancelled the request',
          outcome: 'declined',
          annotations: [],
        },
      ]);
      const late = teachAnswerSummary('Where?', { ...drawn, completed: false }, false);
      expect(recordingEventsOf(answer(late, 'no_answer'), undefined)).toMatchObject([
        { answer: 'did not finish in time; had drawn 2 items: rect 30×40 at 10,20; point 5,6' },
      ]);
    });

    it('keeps only the outcome of a summary that does not read back, and drops malformed items', () => {
      expect(
        recordingEventsOf(
          answer('{"prompt":"x","annotations":[{"kind":"rect","x":1', 'answered'),
          undefined,
        ),
      ).toEqual([
        {
          t: 3_000,
          kind: 'teach.answer',
          answer: 'pointed out 0 items',
          outcome: 'answered',
          by: 'Ada',
          annotations: [],
        },
      ]);
      const odd = JSON.stringify({
        annotations: [
          { kind: 'rect', x: 1, y: 2 },
          { kind: 'circle', x: 1, y: 2 },
          { kind: 'point', x: '1', y: 2 },
          7,
        ],
      });
      expect(recordingEventsOf(answer(odd, 'answered'), undefined)[0]).toMatchObject({
        annotations: [],
      });
    });
  });
});
