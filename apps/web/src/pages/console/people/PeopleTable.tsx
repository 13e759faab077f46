// Everyone on this bridge, for admins: role (changed in place), whether they may sign in, how
// they sign in, and the actions — disable/enable, reset password, remove. Names are text. When
// a reset-password form closes (set, cancelled, Escape), the keyboard goes back to the button
// that opened it.
import type { PersonView, Role } from '@overlay-companion/protocol';
import { Fragment, useEffect, useRef } from 'react';
import { ConfirmButton } from '../../common/ConfirmButton.js';
import { formatDateTime } from '../../common/time.js';
import { ROLE_OPTIONS } from './AddPersonForm.js';
import { ResetPasswordForm } from './ResetPasswordForm.js';

export interface PersonChange {
  role?: Role;
  disabled?: boolean;
  password?: string;
}

export interface PeopleTableProps {
  people: readonly PersonView[];
  myId: string;
  busyId: string | null;
  resettingId: string | null;
  onChange: (person: PersonView, change: PersonChange, done: string) => void;
  onRemove: (person: PersonView) => void;
  onReset: (person: PersonView | null) => void;
}

export function signInMethods(person: Pick<PersonView, 'has_password' | 'oidc_linked'>): string {
  if (person.has_password && person.oidc_linked) return 'Password, OpenID Connect';
  if (person.oidc_linked) return 'OpenID Connect';
  if (person.has_password) return 'Password';
  return 'OpenID Connect (not linked yet)';
}

function resetButtonId(personId: string): string {
  return `reset-button-${personId}`;
}

export function PeopleTable({
  people,
  myId,
  busyId,
  resettingId,
  onChange,
  onRemove,
  onReset,
}: PeopleTableProps) {
  const lastResetting = useRef<string | null>(null);
  useEffect(() => {
    const closed = lastResetting.current;
    lastResetting.current = resettingId;
    if (closed !== null && resettingId === null) {
      document.getElementById(resetButtonId(closed))?.focus();
    }
  }, [resettingId]);
  return (
    <div className="table-scroll" tabIndex={0} role="region" aria-label="People">
      <table className="table">
        <thead>
          <tr>
            <th scope="col">Name</th>
            <th scope="col">Username</th>
            <th scope="col">Role</th>
            <th scope="col">Status</th>
            <th scope="col">Signs in with</th>
            <th scope="col">Added</th>
            <th scope="col">
              <span className="visually-hidden">Actions</span>
            </th>
          </tr>
        </thead>
        <tbody>
          {people.map((person) => {
            const busy = busyId === person.id;
            const me = person.id === myId;
            return (
              <Fragment key={person.id}>
                <tr className={person.disabled ? 'table__row--muted' : undefined}>
                  <th scope="row" className="table__name">
                    {person.display_name}
                    {me ? <span className="muted"> (you)</span> : null}
                  </th>
                  <td>{person.username}</td>
                  <td>
                    <label className="visually-hidden" htmlFor={`role-${person.id}`}>
                      Role of {person.username}
                    </label>
                    <select
                      id={`role-${person.id}`}
                      className="field__input field__input--compact"
                      value={person.role}
                      aria-disabled={busy}
                      onChange={(event) => {
                        if (busy) return;
                        const role = event.target.value === 'admin' ? 'admin' : 'member';
                        onChange(
                          person,
                          { role },
                          `${person.username} is now ${role === 'admin' ? 'an admin' : 'a member'}.`,
                        );
                      }}
                    >
                      {ROLE_OPTIONS.map((option) => (
                        <option key={option.value} value={option.value}>
                          {option.label}
                        </option>
                      ))}
                    </select>
                  </td>
                  <td>{person.disabled ? 'Disabled' : 'Active'}</td>
                  <td>{signInMethods(person)}</td>
                  <td>{formatDateTime(person.created_at)}</td>
                  <td>
                    <div className="actions">
                      <button
                        type="button"
                        className="button"
                        aria-disabled={busy}
                        aria-label={`${person.disabled ? 'Enable' : 'Disable'} ${person.username}`}
                        onClick={() => {
                          if (busy) return;
                          onChange(
                            person,
                            { disabled: !person.disabled },
                            person.disabled
                              ? `${person.username} can sign in again.`
                              : `${person.username} is disabled: signed out everywhere and cannot sign in.`,
                          );
                        }}
                      >
                        {person.disabled ? 'Enable' : 'Disable'}
                      </button>
                      <button
                        id={resetButtonId(person.id)}
                        type="button"
                        className="button"
                        aria-disabled={busy}
                        aria-expanded={resettingId === person.id}
                        aria-label={`Reset the password of ${person.username}`}
                        onClick={() => {
                          if (!busy) onReset(resettingId === person.id ? null : person);
                        }}
                      >
                        Reset password
                      </button>
                      <ConfirmButton
                        label="Remove"
                        accessibleLabel={`Remove ${person.username}`}
                        question={`Remove ${person.display_name} (${person.username})? Their tokens stop working; their audit entries stay.`}
                        confirmLabel="Remove person"
                        disabled={busy}
                        onConfirm={() => onRemove(person)}
                      />
                    </div>
                  </td>
                </tr>
                {resettingId === person.id ? (
                  <tr>
                    <td colSpan={7}>
                      <ResetPasswordForm
                        person={person}
                        busy={busy}
                        onCancel={() => onReset(null)}
                        onSubmit={(password) =>
                          onChange(person, { password }, `New password set for ${person.username}.`)
                        }
                      />
                    </td>
                  </tr>
                ) : null}
              </Fragment>
            );
          })}
        </tbody>
      </table>
    </div>
  );
}
