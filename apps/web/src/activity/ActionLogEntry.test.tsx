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
    expect(html).toContain('click_at');
    expect(html).toContain('approved by Ada');
  });

  it('shows nothing extra without one', () => {
    const html = renderToStaticMarkup(<ActionLogEntry entry={entry('desktop Main')} />);
    expect(html).not.toContain('action-log-intent');
    expect(html).not.toContain('desktop Main');
  });
});
