// The audit log's filters: kind, tool, outcome, a date range and (for admins) the person. The
// person edits a draft; "Apply" hands it to the page, which starts again at the newest entries.
import { AUDIT_KINDS, type AuditKind, type PersonView } from '@overlay-companion/protocol';
import { useState, type FormEvent } from 'react';
import { ErrorMessage } from '../../common/Alert.js';
import { SelectField, TextField } from '../../common/Field.js';
import { KIND_LABELS, NO_FILTERS, filterProblem, type AuditFilters } from './auditQuery.js';

const KIND_OPTIONS: { value: AuditKind | ''; label: string }[] = [
  { value: '', label: 'Any kind' },
  ...AUDIT_KINDS.map((kind) => ({ value: kind, label: KIND_LABELS[kind] })),
];

export interface AuditFiltersFormProps {
  applied: AuditFilters;
  onApply: (filters: AuditFilters) => void;
  /** Admins choose whose entries to see; undefined for everyone else. */
  people: readonly PersonView[] | undefined;
}

export function AuditFiltersForm({ applied, onApply, people }: AuditFiltersFormProps) {
  const [draft, setDraft] = useState<AuditFilters>(applied);
  const [problem, setProblem] = useState<string | null>(null);
  const set =
    <K extends keyof AuditFilters>(key: K) =>
    (value: AuditFilters[K]) =>
      setDraft((previous) => ({ ...previous, [key]: value }));

  const submit = (event: FormEvent) => {
    event.preventDefault();
    const found = filterProblem(draft);
    setProblem(found);
    if (found === null) onApply(draft);
  };

  return (
    <form className="filters" onSubmit={submit} noValidate aria-label="Filter the audit log">
      <ErrorMessage message={problem} />
      <div className="filters__fields">
        <SelectField
          id="audit-kind"
          label="Kind"
          value={draft.kind}
          onChange={set('kind')}
          options={KIND_OPTIONS}
        />
        <TextField
          markOptional={false}
          id="audit-tool"
          label="Tool"
          value={draft.tool}
          onChange={set('tool')}
          spellCheck={false}
          hint="e.g. click_at"
        />
        <TextField
          markOptional={false}
          id="audit-outcome"
          label="Outcome"
          value={draft.outcome}
          onChange={set('outcome')}
          spellCheck={false}
          hint="ok, permission_denied, timeout, …"
        />
        <TextField
          markOptional={false}
          id="audit-from"
          label="From date"
          type="date"
          value={draft.from}
          onChange={set('from')}
        />
        <TextField
          markOptional={false}
          id="audit-to"
          label="To date"
          type="date"
          value={draft.to}
          onChange={set('to')}
        />
        {people !== undefined ? (
          <SelectField
            id="audit-person"
            label="Person"
            value={draft.person_id}
            onChange={set('person_id')}
            options={[
              { value: '', label: 'Everyone' },
              ...people.map((person) => ({
                value: person.id,
                label: `${person.display_name} (${person.username})`,
              })),
            ]}
          />
        ) : null}
      </div>
      <div className="filters__buttons">
        <button type="submit" className="button button--primary">
          Apply filters
        </button>
        <button
          type="button"
          className="button"
          onClick={() => {
            setDraft(NO_FILTERS);
            setProblem(null);
            onApply(NO_FILTERS);
          }}
        >
          Clear filters
        </button>
      </div>
    </form>
  );
}
