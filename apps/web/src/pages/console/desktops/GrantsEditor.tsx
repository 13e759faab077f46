// Who else may use a desktop, for its owner and admins: each grant with its level (view: watch;
// control: work with it and its AI) changed in place or taken away, and — for admins, who can
// list people — a grant given to someone new.
import type { DesktopView, GrantLevel, PersonView } from '@overlay-companion/protocol';
import { useState, type FormEvent } from 'react';
import { ConfirmButton } from '../../common/ConfirmButton.js';
import { SelectField } from '../../common/Field.js';

export const LEVEL_OPTIONS: { value: GrantLevel; label: string }[] = [
  { value: 'view', label: 'View' },
  { value: 'control', label: 'Control' },
];

export interface GrantsEditorProps {
  desktop: DesktopView;
  /** Everyone (admins only): who can be given a grant. Undefined: existing grants only. */
  people: readonly PersonView[] | undefined;
  busy: boolean;
  onGrant: (personId: string, personName: string, level: GrantLevel) => void;
  onRevoke: (personId: string, personName: string) => void;
}

export function GrantsEditor({ desktop, people, busy, onGrant, onRevoke }: GrantsEditorProps) {
  const candidates = (people ?? []).filter(
    (p) =>
      !p.disabled && p.id !== desktop.owner.id && !desktop.grants.some((g) => g.person_id === p.id),
  );
  const [personId, setPersonId] = useState('');
  const [level, setLevel] = useState<GrantLevel>('view');
  const chosen = candidates.find((p) => p.id === personId) ?? candidates[0];
  const headingId = `grants-${desktop.id}`;

  const give = (event: FormEvent) => {
    event.preventDefault();
    if (busy || chosen === undefined) return;
    onGrant(chosen.id, chosen.display_name, level);
  };

  return (
    <section aria-labelledby={headingId} className="section">
      <h3 id={headingId}>Who else may use {desktop.name}</h3>
      {desktop.grants.length === 0 ? (
        <p>Nobody else: only the owner{people === undefined ? '' : ' and admins'}.</p>
      ) : (
        <ul>
          {desktop.grants.map((grant) => (
            <li key={grant.person_id} className="actions">
              <span>{grant.person_name}</span>
              <label className="visually-hidden" htmlFor={`grant-${desktop.id}-${grant.person_id}`}>
                Access of {grant.person_name}
              </label>
              <select
                id={`grant-${desktop.id}-${grant.person_id}`}
                className="field__input field__input--compact"
                value={grant.level}
                aria-disabled={busy}
                onChange={(event) => {
                  if (busy) return;
                  const next = event.target.value === 'control' ? 'control' : 'view';
                  onGrant(grant.person_id, grant.person_name, next);
                }}
              >
                {LEVEL_OPTIONS.map((option) => (
                  <option key={option.value} value={option.value}>
                    {option.label}
                  </option>
                ))}
              </select>
              <ConfirmButton
                label="Take away"
                accessibleLabel={`Take ${grant.person_name}’s access away`}
                question={`Take ${grant.person_name}’s access to ${desktop.name} away? Their windows on it close.`}
                confirmLabel="Take access away"
                disabled={busy}
                onConfirm={() => onRevoke(grant.person_id, grant.person_name)}
              />
            </li>
          ))}
        </ul>
      )}
      {people === undefined ? (
        <p className="muted">To give someone access, ask an admin of this bridge.</p>
      ) : chosen === undefined ? null : (
        <form
          className="form form--inline"
          onSubmit={give}
          noValidate
          aria-label={`Give someone access to ${desktop.name}`}
        >
          <SelectField
            id={`grant-person-${desktop.id}`}
            label="Person"
            value={chosen.id}
            onChange={setPersonId}
            options={candidates.map((p) => ({
              value: p.id,
              label: `${p.display_name} (${p.username})`,
            }))}
          />
          <SelectField
            id={`grant-level-${desktop.id}`}
            label="Access"
            value={level}
            onChange={setLevel}
            options={LEVEL_OPTIONS}
          />
          <button type="submit" className="button button--primary" aria-disabled={busy}>
            Give access
          </button>
        </form>
      )}
    </section>
  );
}
