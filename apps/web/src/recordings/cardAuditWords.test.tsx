// A person reads the same AI call on a timeline card (the recording's event track) and in the
// action log (the audit entry): both must word its decision and outcome the same way. Each case
// is an audit entry and the ai.action event the bridge writes of it (apps/bridge's
// recordings/auditEvents.ts: the collapsed decision, the audit's own decision, approved_by,
// decided_by, outcome and duration), rendered by the real components.
import type { AuditDecision, AuditEntryView } from '@overlay-companion/protocol';
import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import { ActionLogEntry } from '../activity/ActionLogEntry.js';
import { AiActionCards } from './AiActionCards.js';
import type { AiActionEvent } from './recordingsWire.js';

interface Case {
  decision: AuditDecision;
  approvedBy: string | null;
  /** The audit's decided_by (null: an entry from before it was kept). */
  decidedBy?: string;
  outcome: string;
  durationMs: number;
  /** The event track's collapsed decision for it (auditEvents.ts decisionOf). */
  collapsed: string;
  reads: string;
}

const CASES: Case[] = [
  {
    decision: 'allow',
    approvedBy: null,
    outcome: 'ok',
    durationMs: 4,
    collapsed: 'allowed',
    reads: 'Allowed by the mode · done in 4 ms',
  },
  {
    decision: 'standing',
    approvedBy: null,
    outcome: 'ok',
    durationMs: 1200,
    collapsed: 'allowed',
    reads: 'Allowed by a standing permission · done in 1.2 s',
  },
  {
    decision: 'confirm',
    approvedBy: 'Alice',
    outcome: 'ok',
    durationMs: 30,
    collapsed: 'approved',
    reads: 'Asked · approved by Alice · done in 30 ms',
  },
  {
    decision: 'confirm',
    approvedBy: null,
    outcome: 'denied_by_person',
    durationMs: 900,
    collapsed: 'denied',
    reads: 'Asked · denied by the person',
  },
  {
    decision: 'confirm',
    approvedBy: null,
    outcome: 'no_answer',
    durationMs: 60_000,
    collapsed: 'denied',
    reads: 'Asked · no answer in time, so denied',
  },
  {
    decision: 'deny',
    approvedBy: null,
    outcome: 'permission_denied',
    durationMs: 0,
    collapsed: 'denied',
    reads: 'Refused by the policy',
  },
  {
    decision: 'allow',
    approvedBy: null,
    outcome: 'stopped',
    durationMs: 15,
    collapsed: 'stopped',
    reads: 'Allowed by the mode · ended by Stop',
  },
  {
    decision: 'allow',
    approvedBy: null,
    outcome: 'no_viewer',
    durationMs: 2,
    collapsed: 'failed',
    reads: 'Allowed by the mode · ended: no_viewer',
  },
  {
    decision: 'allow',
    approvedBy: null,
    decidedBy: 'the mode autopilot',
    outcome: 'ok',
    durationMs: 4,
    collapsed: 'allowed',
    reads: 'Allowed by the mode autopilot · done in 4 ms',
  },
  {
    decision: 'standing',
    approvedBy: null,
    decidedBy: 'standing permission 2 (click_at for claude, given by Ada)',
    outcome: 'ok',
    durationMs: 4,
    collapsed: 'allowed',
    reads: 'Allowed by standing permission 2 (click_at for claude, given by Ada) · done in 4 ms',
  },
  {
    decision: 'confirm',
    approvedBy: null,
    decidedBy: 'Ada',
    outcome: 'denied_by_person',
    durationMs: 900,
    collapsed: 'denied',
    reads: 'Asked · denied by Ada',
  },
  {
    // A question nobody answered (a click, or the AI's mode raise): the rule, not a person.
    decision: 'confirm',
    approvedBy: null,
    decidedBy: 'no answer within 30 s',
    outcome: 'no_answer',
    durationMs: 30_000,
    collapsed: 'denied',
    reads: 'Asked · no answer in time, so denied',
  },
  {
    decision: 'confirm',
    approvedBy: null,
    decidedBy: 'Stop, pressed by Bo',
    outcome: 'stopped',
    durationMs: 900,
    collapsed: 'stopped',
    reads: 'Asked · ended by Stop, pressed by Bo',
  },
  {
    decision: 'confirm',
    approvedBy: null,
    decidedBy: 'no viewer window open to ask in',
    outcome: 'viewer_unavailable',
    durationMs: 1,
    collapsed: 'failed',
    reads: 'Asked · no viewer window to ask in, so denied',
  },
  {
    decision: 'deny',
    approvedBy: null,
    decidedBy: 'the mode passive',
    outcome: 'permission_denied',
    durationMs: 0,
    collapsed: 'denied',
    reads: 'Refused by the mode passive',
  },
];

function auditRow(c: Case): string {
  const entry: AuditEntryView = {
    id: 1,
    at: 0,
    kind: 'tool_call',
    actor: 'ai',
    person_id: null,
    person_name: null,
    token_name: null,
    client_name: null,
    tool: 'take_screenshot',
    summary: '{}',
    detail: null,
    decision: c.decision,
    approved_by: c.approvedBy,
    decided_by: c.decidedBy ?? null,
    decided_by_person_id: null,
    outcome: c.outcome,
    duration_ms: c.durationMs,
    has_screenshot: false,
  };
  const html = renderToStaticMarkup(<ActionLogEntry entry={entry} />);
  return /<span class="action-log__facts">([^<]*)<\/span>/.exec(html)?.[1] ?? html;
}

function card(c: Case): string {
  const action: AiActionEvent = {
    t: 0,
    kind: 'ai.action',
    id: 'a',
    tool: 'take_screenshot',
    decision: c.collapsed,
    auditDecision: c.decision,
    ...(c.approvedBy === null ? {} : { approvedBy: c.approvedBy }),
    ...(c.decidedBy === undefined ? {} : { decidedBy: c.decidedBy }),
    outcome: c.outcome,
    durationMs: c.durationMs,
  };
  const html = renderToStaticMarkup(
    <AiActionCards recordingId="r" actions={[action]} width={0} height={0} action={() => null} />,
  );
  return /<p class="ai-card__decision[^"]*">([^<]*)<\/p>/.exec(html)?.[1] ?? html;
}

describe('a timeline card and the action log word a call the same way', () => {
  it.each(CASES)('$reads', (c) => {
    expect(auditRow(c)).toBe(c.reads);
    expect(card(c)).toBe(c.reads);
  });

  it('a recording made before the track kept the audit decision still reads as words', () => {
    const old = (decision: string, outcome: string, approvedBy?: string) => {
      const action: AiActionEvent = {
        t: 0,
        kind: 'ai.action',
        id: 'a',
        tool: 'click_at',
        decision,
        outcome,
        durationMs: 4,
        ...(approvedBy === undefined ? {} : { approvedBy }),
      };
      const html = renderToStaticMarkup(
        <AiActionCards
          recordingId="r"
          actions={[action]}
          width={0}
          height={0}
          action={() => null}
        />,
      );
      return /<p class="ai-card__decision[^"]*">([^<]*)<\/p>/.exec(html)?.[1];
    };
    expect(old('approved', 'ok', 'Ada')).toBe('Approved by Ada · done in 4 ms');
    expect(old('stopped', 'stopped')).toBe('Stopped');
    expect(old('denied', 'denied_by_person')).toBe('Denied');
  });
});
