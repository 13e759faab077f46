// Change one's own password (PUT /api/me/password): the current one, the new one twice.
// People who sign in only through OpenID Connect have none to change.
import { API, MIN_PASSWORD_LENGTH, Password, type PersonView } from '@overlay-companion/protocol';
import { useRef, useState, type FormEvent } from 'react';
import { AnyAnswer, api } from '../../../net/api.js';
import { ErrorMessage, StatusMessage } from '../../common/Alert.js';
import { TextField } from '../../common/Field.js';
import { NO_ERRORS, formErrorsFrom, type FormErrors } from '../../common/errors.js';
import { useFocusFirstError } from '../../common/useFocusFirstError.js';

export function PasswordSection({ person }: { person: PersonView }) {
  const [current, setCurrent] = useState('');
  const [next, setNext] = useState('');
  const [confirm, setConfirm] = useState('');
  const [busy, setBusy] = useState(false);
  const [errors, setErrors] = useState<FormErrors>(NO_ERRORS);
  const [notice, setNotice] = useState<string | null>(null);
  const form = useRef<HTMLFormElement>(null);
  useFocusFirstError(form, errors);

  if (!person.has_password) {
    return (
      <section aria-labelledby="password-title" className="section">
        <h2 id="password-title">Password</h2>
        <p>
          You sign in through your organisation&apos;s sign-in (OpenID Connect); there is no
          password here to change.
        </p>
      </section>
    );
  }

  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (busy) return;
    const fields: Record<string, string> = {};
    if (current === '') fields.current_password = 'Enter your current password.';
    const strong = Password.safeParse(next);
    if (!strong.success)
      fields.new_password = `New password ${strong.error.issues[0]?.message ?? 'is not valid'}.`;
    else if (next !== confirm)
      fields.confirm = 'The two new passwords differ; type the same password twice.';
    setNotice(null);
    if (Object.keys(fields).length > 0) {
      setErrors({ form: null, fields });
      return;
    }
    setBusy(true);
    setErrors(NO_ERRORS);
    api.put(API.myPassword, { current_password: current, new_password: next }, AnyAnswer).then(
      () => {
        setBusy(false);
        setCurrent('');
        setNext('');
        setConfirm('');
        setNotice('Password changed.');
      },
      (thrown: unknown) => {
        setBusy(false);
        setErrors(formErrorsFrom(thrown, ['current_password', 'new_password']));
      },
    );
  };

  return (
    <section aria-labelledby="password-title" className="section">
      <h2 id="password-title">Password</h2>
      <form
        ref={form}
        className="form"
        onSubmit={submit}
        noValidate
        aria-labelledby="password-title"
      >
        <ErrorMessage message={errors.form} />
        <StatusMessage message={notice} />
        <input
          type="hidden"
          name="username"
          autoComplete="username"
          value={person.username}
          readOnly
        />
        <TextField
          id="current_password"
          label="Current password"
          type="password"
          autoComplete="current-password"
          required
          value={current}
          onChange={setCurrent}
          error={errors.fields.current_password}
        />
        <TextField
          id="new_password"
          label="New password"
          type="password"
          autoComplete="new-password"
          required
          hint={`At least ${MIN_PASSWORD_LENGTH} characters.`}
          value={next}
          onChange={setNext}
          error={errors.fields.new_password}
        />
        <TextField
          id="confirm_password"
          label="New password again"
          type="password"
          autoComplete="new-password"
          required
          value={confirm}
          onChange={setConfirm}
          error={errors.fields.confirm}
        />
        <button type="submit" className="button button--primary" aria-disabled={busy}>
          {busy ? 'Changing…' : 'Change password'}
        </button>
      </form>
    </section>
  );
}
