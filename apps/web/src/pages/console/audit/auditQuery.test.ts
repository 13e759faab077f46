import { AuditQuery } from '@overlay-companion/protocol';
import { describe, expect, it } from 'vitest';
import {
  NO_FILTERS,
  auditExportPath,
  auditListPath,
  auditParams,
  describeActor,
  describeDuration,
  filterProblem,
  screenshotPath,
} from './auditQuery.js';

function parse(path: string) {
  const query = path.includes('?') ? path.slice(path.indexOf('?') + 1) : '';
  return AuditQuery.safeParse(Object.fromEntries(new URLSearchParams(query)));
}

describe('audit query', () => {
  it('sends no filter when none is set', () => {
    expect(auditListPath(NO_FILTERS)).toBe('/api/audit?limit=50');
    expect(auditExportPath(NO_FILTERS)).toBe('/api/audit/export');
  });

  it('sends every filter the protocol accepts, dates as local day bounds', () => {
    const filters = {
      kind: 'tool_call',
      tool: ' click_at ',
      outcome: 'permission_denied',
      from: '2026-03-01',
      to: '2026-03-02',
      person_id: 'p_1',
    } as const;
    const path = auditListPath(filters, 1234);
    const parsed = parse(path);
    expect(parsed.success).toBe(true);
    expect(parsed.data).toEqual({
      person_id: 'p_1',
      kind: 'tool_call',
      tool: 'click_at',
      outcome: 'permission_denied',
      from: new Date(2026, 2, 1).getTime(),
      to: new Date(2026, 2, 3).getTime() - 1,
      before: 1234,
      limit: 50,
    });
    // The export takes the same filters, without paging.
    const exported = auditExportPath(filters);
    expect(exported.startsWith('/api/audit/export?')).toBe(true);
    expect(exported).not.toContain('before=');
    expect(exported).not.toContain('limit=');
    expect(parse(exported).success).toBe(true);
  });

  it('encodes what people type', () => {
    expect(auditParams({ ...NO_FILTERS, tool: 'a&b=c' }).toString()).toBe('tool=a%26b%3Dc');
    expect(screenshotPath(42)).toBe('/api/audit/42/screenshot');
  });

  it('catches dates a person can fix before asking', () => {
    expect(filterProblem(NO_FILTERS)).toBeNull();
    expect(filterProblem({ ...NO_FILTERS, from: '2026-03-02', to: '2026-03-01' })).toContain(
      'after',
    );
    expect(filterProblem({ ...NO_FILTERS, from: '2026-03-01', to: '2026-03-01' })).toBeNull();
    expect(filterProblem({ ...NO_FILTERS, to: 'soon' })).toContain('not a valid date');
  });
});

describe('audit wording', () => {
  it('says who acted', () => {
    expect(
      describeActor({
        actor: 'ai',
        person_name: 'Ada',
        token_name: 'laptop',
        client_name: 'Claude Desktop',
      }),
    ).toBe('AI · token “laptop” · Claude Desktop · for Ada');
    expect(
      describeActor({ actor: 'person', person_name: null, token_name: null, client_name: null }),
    ).toBe('A person (since removed)');
    expect(
      describeActor({ actor: 'system', person_name: null, token_name: null, client_name: null }),
    ).toBe('Bridge');
  });

  it('words durations', () => {
    expect(describeDuration(null)).toBe('—');
    expect(describeDuration(12)).toBe('12 ms');
    expect(describeDuration(2500)).toBe('2.5 s');
  });
});
