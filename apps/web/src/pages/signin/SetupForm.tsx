// First-run setup: create the admin with the one-time code from the link `serve` printed
// (POST /api/auth/setup, which also signs them in), then open Config & tokens. The code comes
// from the URL fragment; when the link lost it, the person can paste it.
import { API, MIN_PASSWORD_LENGTH, PAGES, SetupRequest } from '@overlay-companion/protocol';
import { useRef, useState, type FormEvent } from 'react';
import { AnyAnswer, publicApi } from '../../net/api.js';
import { ErrorMessage } from '../common/Alert.js';
import { TextField } from '../common/Field.js';
import {
  NO_ERRORS,
  fieldErrorsFromIssues,
  formErrorsFrom,
  type FormErrors,
} from '../common/errors.js';
import { useFocusFirstError } from '../common/useFocusFirstError.js';

const LABELS = {
  code: 'Setup code',
  username: 'Username',
  display_name: 'Display name',
  password: 'Password',
  confirm: 'Password again',
};

export function SetupForm({ codeFromLink }: { codeFromLink: string | null }) {
  const [code, setCode] = useState(codeFromLink ?? '');
  const [username, setUsername] = useState('');
  const [displayName, setDisplayName] = useState('');
  const [password, setPassword] = useState('');
  const [confirm, setConfirm] = useState('');
  const [busy, setBusy] = useState(false);
  const [errors, setErrors] = useState<FormErrors>(NO_ERRORS);
  const form = useRef<HTMLFormElement>(null);
  useFocusFirstError(form, errors);
  const askForCode = codeFromLink === null;

  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (busy) return;
    const parsed = SetupRequest.safeParse({
      code: code.trim(),
      username,
      display_name: displayName.trim() === '' ? undefined : displayName,
      password,
    });
    const fields = parsed.success ? {} : fieldErrorsFromIssues(parsed.error.issues, LABELS);
    if (password !== confirm && fields.password === undefined) {
      fields.confirm = 'The two passwords differ; type the same password twice.';
    }
    if (!parsed.success || Object.keys(fields).length > 0) {
      if (fields.code !== undefined && !askForCode) {
        setErrors({
          form: 'The setup link has no valid code: open the link exactly as overlay-companion serve printed it.',
          fields,
        });
      } else {
        setErrors({ form: null, fields });
      }
      return;
    }
    setBusy(true);
    setErrors(NO_ERRORS);
    publicApi.post(API.setup, parsed.data, AnyAnswer).then(
      () => window.location.assign(PAGES.config),
      (thrown: unknown) => {
        setBusy(false);
        const known = ['username', 'display_name', 'password', ...(askForCode ? ['code'] : [])];
        setErrors(formErrorsFrom(thrown, known));
      },
    );
  };

  return (
    <form ref={form} className="form" onSubmit={submit} noValidate aria-label="Create the admin">
      <ErrorMessage message={errors.form} />
      {askForCode ? (
        <TextField
          id="code"
          label={LABELS.code}
          value={code}
          onChange={setCode}
          autoComplete="off"
          spellCheck={false}
          required
          hint="The part after #code= in the setup link that overlay-companion serve printed."
          error={errors.fields.code}
        />
      ) : null}
      <TextField
        id="username"
        label={LABELS.username}
        value={username}
        onChange={setUsername}
        autoComplete="username"
        spellCheck={false}
        required
        hint="Letters, digits and . _ @ - (an email address works)."
        error={errors.fields.username}
      />
      <TextField
        id="display_name"
        label={LABELS.display_name}
        value={displayName}
        onChange={setDisplayName}
        autoComplete="name"
        hint="How the console greets you; your username when left empty."
        error={errors.fields.display_name}
      />
      <TextField
        id="password"
        label={LABELS.password}
        type="password"
        value={password}
        onChange={setPassword}
        autoComplete="new-password"
        required
        hint={`At least ${MIN_PASSWORD_LENGTH} characters.`}
        error={errors.fields.password}
      />
      <TextField
        id="confirm"
        label={LABELS.confirm}
        type="password"
        value={confirm}
        onChange={setConfirm}
        autoComplete="new-password"
        required
        error={errors.fields.confirm}
      />
      <button type="submit" className="button button--primary button--wide" aria-disabled={busy}>
        {busy ? 'Creating the admin…' : 'Create the admin and sign in'}
      </button>
    </form>
  );
}
