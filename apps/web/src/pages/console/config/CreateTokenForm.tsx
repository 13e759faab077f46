// Create an API token (POST /api/tokens): a name, an optional number of days until it stops
// working, and the desktops it may use — all of the person's, or the ones ticked. The answer's
// secret goes to the caller, which shows it once.
import { API, CreateTokenRequest, CreatedToken, DesktopList } from '@overlay-companion/protocol';
import { useRef, useState, type FormEvent } from 'react';
import { api } from '../../../net/api.js';
import { ErrorMessage } from '../../common/Alert.js';
import { CheckboxField, TextField } from '../../common/Field.js';
import {
  NO_ERRORS,
  fieldErrorsFromIssues,
  formErrorsFrom,
  type FormErrors,
} from '../../common/errors.js';
import { useFocusFirstError } from '../../common/useFocusFirstError.js';
import { useLoad } from '../../common/useLoad.js';

const LABELS = { name: 'Name', expires_in_days: 'Days until it expires', desktops: 'Desktops' };

const loadDesktops = () => api.get(API.desktops, DesktopList);

/** The expiry field's text as the request wants it: '' → null (until revoked). */
export function parseExpiryDays(text: string): number | null {
  const trimmed = text.trim();
  return trimmed === '' ? null : Number(trimmed);
}

export function CreateTokenForm({ onCreated }: { onCreated: (created: CreatedToken) => void }) {
  const [name, setName] = useState('');
  const [days, setDays] = useState('');
  /** null: every desktop the person may use; else the ids ticked. */
  const [chosen, setChosen] = useState<readonly string[] | null>(null);
  const desktops = useLoad(loadDesktops);
  const [busy, setBusy] = useState(false);
  const [errors, setErrors] = useState<FormErrors>(NO_ERRORS);
  const form = useRef<HTMLFormElement>(null);
  useFocusFirstError(form, errors);

  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (busy) return;
    const parsed = CreateTokenRequest.safeParse({
      name,
      expires_in_days: parseExpiryDays(days),
      desktops: chosen,
    });
    if (!parsed.success) {
      const fields = fieldErrorsFromIssues(parsed.error.issues, LABELS);
      if (fields.expires_in_days !== undefined)
        fields.expires_in_days =
          'Days until it expires must be a whole number from 1 to 3650, or empty for no expiry.';
      if (fields.desktops !== undefined)
        fields.desktops = 'Tick at least one desktop, or choose “All my desktops”.';
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
        setChosen(null);
        onCreated(created);
      },
      (thrown: unknown) => {
        setBusy(false);
        setErrors(formErrorsFrom(thrown, ['name', 'expires_in_days', 'desktops']));
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
      <fieldset
        className="field"
        aria-describedby={errors.fields.desktops ? 'token-desktops-error' : undefined}
      >
        <legend className="field__label">{LABELS.desktops}</legend>
        <div className="toggle">
          <input
            id="token-desktops-all"
            name="token-desktops"
            type="radio"
            className="toggle__input"
            checked={chosen === null}
            onChange={() => setChosen(null)}
          />
          <label htmlFor="token-desktops-all" className="toggle__label">
            All my desktops (also ones I get later)
          </label>
        </div>
        <div className="toggle">
          <input
            id="token-desktops-some"
            name="token-desktops"
            type="radio"
            className="toggle__input"
            checked={chosen !== null}
            onChange={() => setChosen([])}
          />
          <label htmlFor="token-desktops-some" className="toggle__label">
            Only these
          </label>
        </div>
        {chosen === null ? null : desktops.data === undefined ? (
          <p role="status">{desktops.error ?? 'Loading desktops…'}</p>
        ) : desktops.data.desktops.length === 0 ? (
          <p>You may use no desktop yet.</p>
        ) : (
          desktops.data.desktops.map((desktop) => (
            <CheckboxField
              key={desktop.id}
              id={`token-desktop-${desktop.id}`}
              label={desktop.name}
              checked={chosen.includes(desktop.id)}
              onChange={(on) =>
                setChosen((previous) => {
                  const ids = previous ?? [];
                  return on ? [...ids, desktop.id] : ids.filter((id) => id !== desktop.id);
                })
              }
            />
          ))
        )}
        {errors.fields.desktops ? (
          <p id="token-desktops-error" className="field__error" role="alert">
            {errors.fields.desktops}
          </p>
        ) : null}
      </fieldset>
      <button type="submit" className="button button--primary" aria-disabled={busy}>
        {busy ? 'Creating…' : 'Create token'}
      </button>
    </form>
  );
}
