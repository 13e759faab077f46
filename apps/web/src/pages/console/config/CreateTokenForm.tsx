// Create an API token (POST /api/tokens): a name and an optional number of days until it stops
// working. The answer's secret goes to the caller, which shows it once.
import { API, CreateTokenRequest, CreatedToken } from '@overlay-companion/protocol';
import { useRef, useState, type FormEvent } from 'react';
import { api } from '../../../net/api.js';
import { ErrorMessage } from '../../common/Alert.js';
import { TextField } from '../../common/Field.js';
import {
  NO_ERRORS,
  fieldErrorsFromIssues,
  formErrorsFrom,
  type FormErrors,
} from '../../common/errors.js';
import { useFocusFirstError } from '../../common/useFocusFirstError.js';

const LABELS = { name: 'Name', expires_in_days: 'Days until it expires' };

/** The expiry field's text as the request wants it: '' → null (until revoked). */
export function parseExpiryDays(text: string): number | null {
  const trimmed = text.trim();
  return trimmed === '' ? null : Number(trimmed);
}

export function CreateTokenForm({ onCreated }: { onCreated: (created: CreatedToken) => void }) {
  const [name, setName] = useState('');
  const [days, setDays] = useState('');
  const [busy, setBusy] = useState(false);
  const [errors, setErrors] = useState<FormErrors>(NO_ERRORS);
  const form = useRef<HTMLFormElement>(null);
  useFocusFirstError(form, errors);

  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (busy) return;
    const parsed = CreateTokenRequest.safeParse({ name, expires_in_days: parseExpiryDays(days) });
    if (!parsed.success) {
      const fields = fieldErrorsFromIssues(parsed.error.issues, LABELS);
      if (fields.expires_in_days !== undefined)
        fields.expires_in_days =
          'Days until it expires must be a whole number from 1 to 3650, or empty for no expiry.';
      setErrors({ form: null, fields });
      return;
    }
    setBusy(true);
    setErrors(NO_ERRORS);
    api.post(API.tokens, parsed.data, CreatedToken).then(
      (created) => {
        setBusy(false);
        setName('');
        setDays('');
        onCreated(created);
      },
      (thrown: unknown) => {
        setBusy(false);
        setErrors(formErrorsFrom(thrown, ['name', 'expires_in_days']));
      },
    );
  };

  return (
    <form
      ref={form}
      className="form form--inline"
      onSubmit={submit}
      noValidate
      aria-label="Create a token"
    >
      <ErrorMessage message={errors.form} />
      <TextField
        id="token-name"
        label={LABELS.name}
        value={name}
        onChange={setName}
        required
        maxLength={64}
        autoComplete="off"
        hint="Where it will be used, e.g. “Claude Desktop on my laptop”."
        error={errors.fields.name}
      />
      <TextField
        id="token-days"
        label={LABELS.expires_in_days}
        type="number"
        inputMode="numeric"
        min={1}
        max={3650}
        value={days}
        onChange={setDays}
        hint="Empty: it works until you revoke it."
        error={errors.fields.expires_in_days}
      />
      <button type="submit" className="button button--primary" aria-disabled={busy}>
        {busy ? 'Creating…' : 'Create token'}
      </button>
    </form>
  );
}
