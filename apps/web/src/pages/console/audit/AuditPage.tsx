// /audit: what happened on this bridge, newest first, with filters, paging (Older / Newer /
// Newest, following the API's next_before) and an export of the filtered entries as JSON lines.
// Admins see everyone's entries and can pick a person; everyone else sees their own.
import {
  API,
  AuditPage as AuditPageAnswer,
  PeopleList,
  type Me,
} from '@overlay-companion/protocol';
import { useCallback, useState } from 'react';
import { api } from '../../../net/api.js';
import { ErrorMessage } from '../../common/Alert.js';
import { useLoad } from '../../common/useLoad.js';
import { AuditFiltersForm } from './AuditFiltersForm.js';
import { AuditTable } from './AuditTable.js';
import { NO_FILTERS, auditExportPath, auditListPath, type AuditFilters } from './auditQuery.js';

const loadPeople = () => api.get(API.people, PeopleList);
const noPeople = () => Promise.resolve(undefined);

export function AuditPage({ me }: { me: Me }) {
  const isAdmin = me.person.role === 'admin';
  const [filters, setFilters] = useState<AuditFilters>(NO_FILTERS);
  // The `before` of each page shown after the newest one; empty = the newest page.
  const [cursors, setCursors] = useState<readonly number[]>([]);
  const before = cursors.at(-1) ?? null;
  const loadEntries = useCallback(
    () => api.get(auditListPath(filters, before), AuditPageAnswer),
    [filters, before],
  );
  const entries = useLoad(loadEntries);
  const people = useLoad(isAdmin ? loadPeople : noPeople);
  const nextBefore = entries.data?.next_before ?? null;

  return (
    <>
      <p>
        {isAdmin
          ? 'Everything that happened on this bridge, newest first: tool calls, approvals, mode changes, sign-ins and changes to tokens, people and settings.'
          : 'What happened on your account, newest first: the tool calls your AI clients made, your approvals, mode changes, sign-ins and token changes.'}
      </p>
      {people.error !== null ? (
        <ErrorMessage message={`The list of people could not be read: ${people.error}`} />
      ) : null}
      <AuditFiltersForm
        applied={filters}
        people={isAdmin ? (people.data?.people ?? []) : undefined}
        onApply={(next) => {
          setFilters(next);
          setCursors([]);
        }}
      />
      <p>
        <a className="button" href={auditExportPath(filters)} download>
          Export JSON lines
        </a>{' '}
        <span className="muted">All entries these filters select, one JSON object per line.</span>
      </p>
      {entries.error !== null ? <ErrorMessage message={entries.error} /> : null}
      <p className="visually-hidden" role="status">
        {entries.loading ? 'Loading entries…' : ''}
      </p>
      {entries.data !== undefined ? (
        <div aria-busy={entries.loading}>
          <AuditTable entries={entries.data.entries} />
        </div>
      ) : null}
      <nav className="pager" aria-label="Audit pages">
        <button
          type="button"
          className="button"
          aria-disabled={cursors.length === 0}
          onClick={() => setCursors([])}
        >
          Newest
        </button>
        <button
          type="button"
          className="button"
          aria-disabled={cursors.length === 0}
          onClick={() => setCursors((c) => c.slice(0, -1))}
        >
          Newer
        </button>
        <button
          type="button"
          className="button"
          aria-disabled={nextBefore === null || entries.loading}
          onClick={() => {
            if (nextBefore !== null && !entries.loading) setCursors((c) => [...c, nextBefore]);
          }}
        >
          Older
        </button>
      </nav>
    </>
  );
}
