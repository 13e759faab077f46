// The recording's events from audit entries: typed text is redacted even where the person in
// charge keeps it in their own audit (a recording is watched by everyone who may see the
// desktop), the audit's own redaction is kept as it is, text posing as a redaction is not
// trusted, and a cut summary of a tool that carries text is dropped whole.
import { describe, expect, it } from 'vitest';
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
});
