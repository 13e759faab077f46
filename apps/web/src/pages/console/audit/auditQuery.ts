// The audit page's filters as the API's query string (GET /api/audit and its JSON-lines export
// take the same one), the screenshot link of an entry, and the words for kinds and actors. Pure,
// so the query the page sends is tested against the protocol's AuditQuery schema.
import { API, type AuditEntryView, type AuditKind } from '@overlay-companion/protocol';
import { dayEnd, dayStart } from '../../common/time.js';
import { durationText } from '../../../activity/decisionWords.js';

/** The filter form's fields, as typed ('' = no filter; dates as the date inputs give them). */
export interface AuditFilters {
  kind: AuditKind | '';
  tool: string;
  outcome: string;
  /** YYYY-MM-DD, local day, inclusive. */
  from: string;
  to: string;
  /** Admins only; '' = everyone (for an admin) or oneself (for everyone else). */
  person_id: string;
}

export const NO_FILTERS: AuditFilters = {
  kind: '',
  tool: '',
  outcome: '',
  from: '',
  to: '',
  person_id: '',
};

export const PAGE_SIZE = 50;

/** Query parameters for the filters, leaving out the empty ones; `before` pages to older entries. */
export function auditParams(filters: AuditFilters, before?: number | null): URLSearchParams {
  const params = new URLSearchParams();
  if (filters.person_id !== '') params.set('person_id', filters.person_id);
  if (filters.kind !== '') params.set('kind', filters.kind);
  const tool = filters.tool.trim();
  if (tool !== '') params.set('tool', tool);
  const outcome = filters.outcome.trim();
  if (outcome !== '') params.set('outcome', outcome);
  const from = dayStart(filters.from);
  if (from !== null) params.set('from', String(from));
  const to = dayEnd(filters.to);
  if (to !== null) params.set('to', String(to));
  if (before !== undefined && before !== null) params.set('before', String(before));
  return params;
}

function withQuery(path: string, params: URLSearchParams): string {
  const query = params.toString();
  return query === '' ? path : `${path}?${query}`;
}

/** One page of entries (GET /api/audit). */
export function auditListPath(filters: AuditFilters, before?: number | null): string {
  const params = auditParams(filters, before);
  params.set('limit', String(PAGE_SIZE));
  return withQuery(API.audit, params);
}

/** Every entry the filters select, as JSON lines (a download). */
export function auditExportPath(filters: AuditFilters): string {
  return withQuery(API.auditExport, auditParams(filters));
}

export function screenshotPath(id: number): string {
  return `${API.audit}/${id}/screenshot`;
}

/** Problems a person can fix before asking the bridge (dates the wrong way round). */
export function filterProblem(filters: AuditFilters): string | null {
  const from = dayStart(filters.from);
  const to = dayEnd(filters.to);
  if (filters.from !== '' && from === null) return '“From date” is not a valid date.';
  if (filters.to !== '' && to === null) return '“To date” is not a valid date.';
  if (from !== null && to !== null && from > to) return 'The “From date” is after the “To date”.';
  return null;
}

export const KIND_LABELS: Readonly<Record<AuditKind, string>> = {
  tool_call: 'Tool call',
  mode_change: 'Mode change',
  approval: 'Approval',
  teach_answer: 'Teach answer',
  stop: 'Stop',
  sign_in: 'Sign-in',
  sign_in_failed: 'Failed sign-in',
  sign_out: 'Sign-out',
  password_changed: 'Password changed',
  token_created: 'Token created',
  token_revoked: 'Token revoked',
  person_added: 'Person added',
  person_changed: 'Person changed',
  person_removed: 'Person removed',
  permissions_changed: 'Permissions changed',
  settings_changed: 'Settings changed',
  layout_changed: 'Monitor layout changed',
  desktop_created: 'Desktop added',
  desktop_changed: 'Desktop changed',
  desktop_removed: 'Desktop removed',
  desktop_grant_changed: 'Desktop access changed',
  standing_permission: 'Standing permission',
  file_transfer: 'File transfer',
  recording_viewed: 'Recording viewed',
  recording_exported: 'Recording exported',
  recording_deleted: 'Recording deleted',
  audit_outage: 'Audit outage',
};

/** Who acted, in words: "AI · token “laptop” · Claude Desktop", "Ada", "Bridge". */
export function describeActor(
  entry: Pick<AuditEntryView, 'actor' | 'person_name' | 'token_name' | 'client_name'>,
): string {
  switch (entry.actor) {
    case 'ai': {
      const parts = ['AI'];
      if (entry.token_name !== null) parts.push(`token “${entry.token_name}”`);
      if (entry.client_name !== null) parts.push(entry.client_name);
      if (entry.person_name !== null) parts.push(`for ${entry.person_name}`);
      return parts.join(' · ');
    }
    case 'person':
      return entry.person_name ?? 'A person (since removed)';
    case 'system':
      return 'Bridge';
    default: {
      const never: never = entry.actor;
      throw new Error(`unknown audit actor ${String(never)}`);
    }
  }
}

export function describeDuration(ms: number | null): string {
  return ms === null ? '—' : durationText(ms);
}
