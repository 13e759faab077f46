// An admin adds a person (POST /api/people): username, display name, role, and a password —
// optional, because people without one sign in only through OpenID Connect.
import { API, AddPersonRequest, MIN_PASSWORD_LENGTH, type Role } from '@overlay-companion/protocol';
import { useRef, useState, type FormEvent } from 'react';
import { AnyAnswer, api } from '../../../net/api.js';
import { ErrorMessage } from '../../common/Alert.js';
import { SelectField, TextField } from '../../common/Field.js';
import {
  NO_ERRORS,
  fieldErrorsFromIssues,
  formErrorsFrom,
  type FormErrors,
} from '../../common/errors.js';
import { useFocusFirstError } from '../../common/useFocusFirstError.js';

const LABELS = {
  username: 'Username',
  display_name: 'Display name',
  password: 'Password',
  role: 'Role',
};

export const ROLE_OPTIONS: { value: Role; label: string }[] = [
  { value: 'member', label: 'Member' },
  { value: 'admin', label: 'Admin' },
];

export function AddPersonForm({ onAdded }: { onAdded: (username: string) => void }) {
  const [username, setUsername] = useState('');
  const [displayName, setDisplayName] = useState('');
  const [password, setPassword] = useState('');
  const [role, setRole] = useState<Role>('member');
  const [busy, setBusy] = useState(false);
  const [errors, setErrors] = useState<FormErrors>(NO_ERRORS);
  const form = useRef<HTMLFormElement>(null);
  useFocusFirstError(form, errors);

  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (busy) return;
    const parsed = AddPersonRequest.safeParse({
      username,
      display_name: displayName.trim() === '' ? undefined : displayName,
      password: password === '' ? undefined : password,
      role,
    });
    if (!parsed.success) {
      setErrors({ form: null, fields: fieldErrorsFromIssues(parsed.error.issues, LABELS) });
      return;
    }
    setBusy(true);
    setErrors(NO_ERRORS);
    api.post(API.people, parsed.data, AnyAnswer).then(
      () => {
        setBusy(false);
        setUsername('');
        setDisplayName('');
        setPassword('');
        setRole('member');
        onAdded(parsed.data.username);
      },
      (thrown: unknown) => {
        setBusy(false);
        setErrors(formErrorsFrom(thrown, Object.keys(LABELS)));
      },
    );
  };

  return (
    <form
      ref={form}
      className="form form--inline"
      onSubmit={submit}
      noValidate
      aria-label="Add a person"
    >
      <ErrorMessage message={errors.form} />
      <TextField
        id="person-username"
        label={LABELS.username}
        value={username}
        onChange={setUsername}
        required
        spellCheck={false}
        autoComplete="off"
        error={errors.fields.username}
      />
      <TextField
        id="person-display-name"
        label={LABELS.display_name}
        value={displayName}
        onChange={setDisplayName}
        autoComplete="off"
        error={errors.fields.display_name}
      />
      <TextField
        id="person-password"
        label={LABELS.password}
        type="password"
        value={password}
        onChange={setPassword}
        autoComplete="new-password"
        hint={`At least ${MIN_PASSWORD_LENGTH} characters. Without one, they sign in only through OpenID Connect.`}
        error={errors.fields.password}
      />
      <SelectField
        id="person-role"
        label={LABELS.role}
        value={role}
        onChange={setRole}
        options={ROLE_OPTIONS}
      />
      <button type="submit" className="button button--primary" aria-disabled={busy}>
        {busy ? 'Adding…' : 'Add person'}
      </button>
    </form>
  );
}
