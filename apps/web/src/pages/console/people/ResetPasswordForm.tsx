// An admin sets a new password for someone (PATCH /api/people/:id with `password`), e.g. when
// they forgot theirs. Shown under that person's row.
import { MIN_PASSWORD_LENGTH, Password, type PersonView } from '@overlay-companion/protocol';
import { useEffect, useRef, useState, type FormEvent } from 'react';
import { TextField } from '../../common/Field.js';

export interface ResetPasswordFormProps {
  person: PersonView;
  busy: boolean;
  onSubmit: (password: string) => void;
  onCancel: () => void;
}

export function ResetPasswordForm({ person, busy, onSubmit, onCancel }: ResetPasswordFormProps) {
  const [password, setPassword] = useState('');
  const [error, setError] = useState<string | undefined>(undefined);
  const input = useRef<HTMLInputElement>(null);
  useEffect(() => {
    input.current?.focus();
  }, []);
  const id = `reset-${person.id}`;

  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (busy) return;
    const parsed = Password.safeParse(password);
    if (!parsed.success) {
      setError(`New password ${parsed.error.issues[0]?.message ?? 'is not valid'}.`);
      input.current?.focus();
      return;
    }
    setError(undefined);
    onSubmit(parsed.data);
  };

  return (
    <form
      className="form form--inline"
      onSubmit={submit}
      noValidate
      aria-label={`New password for ${person.username}`}
      onKeyDown={(event) => {
        if (event.key === 'Escape') onCancel();
      }}
    >
      <TextField
        id={id}
        label={`New password for ${person.display_name}`}
        type="password"
        autoComplete="new-password"
        required
        value={password}
        onChange={setPassword}
        inputRef={input}
        hint={`At least ${MIN_PASSWORD_LENGTH} characters. Tell them through a channel you trust; their other sessions end.`}
        error={error}
      />
      <button type="submit" className="button button--primary" aria-disabled={busy}>
        Set password
      </button>
      <button type="button" className="button" onClick={onCancel}>
        Cancel
      </button>
    </form>
  );
}
