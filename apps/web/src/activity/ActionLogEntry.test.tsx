// A line of the action log shows the AI's intent (from the audit entry's detail line) with the
// action, as text; an entry without one shows nothing extra.
import { detailWithIntent, type AuditEntryView } from '@overlay-companion/protocol';
import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import { ActionLogEntry } from './ActionLogEntry.js';

const HOSTILE = '<img src=x onerror="alert(1)"><script>alert(2)</script>';

function entry(detail: string | null): AuditEntryView {
  return {
    id: 1,
    at: 0,
    kind: 'tool_call',
    actor: 'ai',
    person_id: 'p1',
    person_name: 'Ada',
    token_name: null,
    client_name: 'claude',
    tool: 'click_at',
    summary: '{"x":1,"y":2}',
    detail,
    decision: 'confirm',
    approved_by: 'Ada',
    decided_by: 'Ada',
    decided_by_person_id: 'p1',
    outcome: 'ok',
    duration_ms: 3,
    has_screenshot: false,
  };
}

describe('ActionLogEntry', () => {
  it("shows the AI's intent with the action, as text", () => {
    const html = renderToStaticMarkup(
      <ActionLogEntry entry={entry(detailWithIntent('desktop Main', HOSTILE))} />,
    );
    expect(html).not.toContain('<img');
    expect(html).not.toContain('<script');
    expect(html).toContain('data-testid="action-log-intent"');
    expect(html).toContain('&lt;img src=x onerror=&quot;alert(1)&quot;&gt;&lt;script&gt;');
    expect(html).toContain('Click (left) at 1, 2');
    expect(html).toContain('Asked · approved by Ada');
  });

  it('reads as sentences: typed text when kept, its length when not, and how it was decided', () => {
    const typed = (text: string, over: Partial<AuditEntryView>) =>
      renderToStaticMarkup(
        <ActionLogEntry
          entry={{ ...entry(null), tool: 'type_text', summary: JSON.stringify({ text }), ...over }}
        />,
      );
    const standing = { decision: 'standing', approved_by: null, decided_by: null } as const;
    expect(typed('hello', standing)).toContain('Type “hello”');
    expect(typed('hello', standing)).toContain('Allowed by a standing permission');
    const redacted = typed('[redacted: 5 characters]', {
      decision: 'allow',
      approved_by: null,
      decided_by: null,
    });
    expect(redacted).toContain('Type 5 characters (not kept)');
    expect(redacted).toContain('Allowed by the mode');
    // Who denied, as the audit names them; an entry from before it was kept reads as before.
    expect(
      typed('x', { approved_by: null, decided_by: 'Bo', outcome: 'denied_by_person' }),
    ).toContain('Asked · denied by Bo');
    expect(
      typed('x', { approved_by: null, decided_by: null, outcome: 'denied_by_person' }),
    ).toContain('Asked · denied by the person');
    expect(typed('x', { approved_by: null, outcome: 'no_answer' })).toContain(
      'Asked · no answer in time, so denied',
    );
    expect(
      typed('x', {
        decision: 'deny',
        approved_by: null,
        decided_by: null,
        outcome: 'permission_denied',
      }),
    ).toContain('Refused by the policy');
    // Not JSON (cut at the summary's limit): shown as it is, never thrown.
    expect(typed('x', { summary: '{"text":"abc… [5 more characters]' })).toContain('type_text');
  });

  it('shows nothing extra without one', () => {
    const html = renderToStaticMarkup(<ActionLogEntry entry={entry('desktop Main')} />);
    expect(html).not.toContain('action-log-intent');
    expect(html).not.toContain('desktop Main');
  });
});
