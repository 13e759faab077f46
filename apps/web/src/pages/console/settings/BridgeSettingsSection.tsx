// Bridge-wide settings, for admins (GET / PUT /api/settings): how many days the audit log keeps
// its entries, and whether members may add desktops of their own.
import { API, BridgeSettings } from '@overlay-companion/protocol';
import { useRef, useState, type FormEvent } from 'react';
import { AnyAnswer, api } from '../../../net/api.js';
import { ErrorMessage, StatusMessage } from '../../common/Alert.js';
import { CheckboxField, TextField } from '../../common/Field.js';
import { NO_ERRORS, formErrorsFrom, type FormErrors } from '../../common/errors.js';
import { useFocusFirstError } from '../../common/useFocusFirstError.js';
import { useLoad } from '../../common/useLoad.js';

const loadSettings = () => api.get(API.settings, BridgeSettings);

export function BridgeSettingsSection() {
  const settings = useLoad(loadSettings);
  const [days, setDays] = useState<string | null>(null);
  const [mayAdd, setMayAdd] = useState<boolean | null>(null);
  const [busy, setBusy] = useState(false);
  const [errors, setErrors] = useState<FormErrors>(NO_ERRORS);
  const [notice, setNotice] = useState<string | null>(null);
  const form = useRef<HTMLFormElement>(null);
  useFocusFirstError(form, errors);
  const loaded = settings.data;
  // Until the person edits the field, it shows what the bridge has.
  const shown = days ?? (loaded ? String(loaded.audit_retention_days) : '');
  const shownMayAdd = mayAdd ?? loaded?.people_may_add_desktops ?? false;

  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (busy || !loaded) return;
    const parsed = BridgeSettings.safeParse({
      ...loaded,
      audit_retention_days: Number(shown),
      people_may_add_desktops: shownMayAdd,
    });
    setNotice(null);
    if (shown.trim() === '' || !parsed.success) {
      setErrors({
        form: null,
        fields: {
          audit_retention_days: 'Keep audit entries for a whole number of days from 1 to 3650.',
        },
      });
      return;
    }
    setBusy(true);
    setErrors(NO_ERRORS);
    api.put(API.settings, parsed.data, AnyAnswer).then(
      () => {
        setBusy(false);
        setNotice(
          `Saved: audit entries are kept for ${parsed.data.audit_retention_days} days; ${
            parsed.data.people_may_add_desktops ? 'everyone' : 'only admins'
          } may add desktops.`,
        );
        settings.reload();
      },
      (thrown: unknown) => {
        setBusy(false);
        setErrors(formErrorsFrom(thrown, ['audit_retention_days']));
      },
    );
  };

  return (
    <section aria-labelledby="bridge-settings-title" className="section">
      <h2 id="bridge-settings-title">Bridge settings</h2>
      <p>For everyone on this bridge; only admins see and change them.</p>
      {settings.error !== null ? <ErrorMessage message={settings.error} /> : null}
      {loaded === undefined ? (
        settings.error === null ? (
          <p role="status">Loading settings…</p>
        ) : null
      ) : (
        <form
          ref={form}
          className="form"
          onSubmit={submit}
          noValidate
          aria-labelledby="bridge-settings-title"
        >
          <ErrorMessage message={errors.form} />
          <StatusMessage message={notice} />
          <TextField
            id="audit_retention_days"
            label="Keep audit entries for (days)"
            type="number"
            inputMode="numeric"
            min={1}
            max={3650}
            required
            value={shown}
            onChange={setDays}
            hint="Older entries are deleted."
            error={errors.fields.audit_retention_days}
          />
          <CheckboxField
            id="people_may_add_desktops"
            label="Members may add desktops of their own"
            checked={shownMayAdd}
            onChange={setMayAdd}
            hint="Admins always may. A member's desktop is theirs to change and remove. They can point the bridge (or guacd) at any host and port it reaches."
          />
          <button type="submit" className="button button--primary" aria-disabled={busy}>
            {busy ? 'Saving…' : 'Save'}
          </button>
        </form>
      )}
    </section>
  );
}
