// The sign-in form: username and password (POST /api/auth/signin), and "Sign in with <label>"
// when the bridge has OpenID Connect. Success goes to `next` (already made safe by the caller);
// a refusal is shown as text, a ban with the time it ends.
import { API, type AuthState } from '@overlay-companion/protocol';
import { useRef, useState, type FormEvent } from 'react';
import { AnyAnswer, publicApi } from '../../net/api.js';
import { oidcStartUrl } from '../../net/nextPath.js';
import { ErrorMessage } from '../common/Alert.js';
import { TextField } from '../common/Field.js';
import { NO_ERRORS, signInErrorText, type FormErrors } from '../common/errors.js';
import { useFocusFirstError } from '../common/useFocusFirstError.js';

export interface SignInFormProps {
  oidc: AuthState['oidc'];
  next: string;
}

export function SignInForm({ oidc, next }: SignInFormProps) {
  const [username, setUsername] = useState('');
  const [password, setPassword] = useState('');
  const [busy, setBusy] = useState(false);
  const [errors, setErrors] = useState<FormErrors>(NO_ERRORS);
  const form = useRef<HTMLFormElement>(null);
  const passwordInput = useRef<HTMLInputElement>(null);
  useFocusFirstError(form, errors);

  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (busy) return;
    const fields: Record<string, string> = {};
    if (username.trim() === '') fields.username = 'Enter your username.';
    if (password === '') fields.password = 'Enter your password.';
    if (Object.keys(fields).length > 0) {
      setErrors({ form: null, fields });
      return;
    }
    setBusy(true);
    setErrors(NO_ERRORS);
    publicApi.post(API.signIn, { username: username.trim(), password }, AnyAnswer).then(
      () => window.location.assign(next),
      (thrown: unknown) => {
        setBusy(false);
        setPassword('');
        setErrors({ form: signInErrorText(thrown), fields: {} });
        passwordInput.current?.focus();
      },
    );
  };

  return (
    <>
      <form ref={form} className="form" onSubmit={submit} noValidate aria-label="Sign in">
        <ErrorMessage message={errors.form} />
        <TextField
          id="username"
          label="Username"
          value={username}
          onChange={setUsername}
          autoComplete="username"
          spellCheck={false}
          required
          error={errors.fields.username}
        />
        <TextField
          id="password"
          label="Password"
          type="password"
          value={password}
          onChange={setPassword}
          autoComplete="current-password"
          required
          inputRef={passwordInput}
          error={errors.fields.password}
        />
        <button type="submit" className="button button--primary button--wide" aria-disabled={busy}>
          {busy ? 'Signing in…' : 'Sign in'}
        </button>
      </form>
      {oidc ? (
        <>
          <p className="auth__or">or</p>
          <a className="button button--wide" href={oidcStartUrl(next)}>
            Sign in with {oidc.label}
          </a>
        </>
      ) : null}
    </>
  );
}
