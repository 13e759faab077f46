// Bridge-wide settings, for admins (GET / PUT /api/settings): how many days the audit log keeps
// its entries, whether members may add desktops of their own, and how many local desktops of a
// member's may run at once.
import { API, BridgeSettings, MAX_DESKTOPS_PER_MEMBER } from '@overlay-companion/protocol';
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
  const [running, setRunning] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const [errors, setErrors] = useState<FormErrors>(NO_ERRORS);
  const [notice, setNotice] = useState<string | null>(null);
  const form = useRef<HTMLFormElement>(null);
  useFocusFirstError(form, errors);
  const loaded = settings.data;
  // Until the person edits the field, it shows what the bridge has.
  const shown = days ?? (loaded ? String(loaded.audit_retention_days) : '');
  const shownMayAdd = mayAdd ?? loaded?.people_may_add_desktops ?? false;
  const shownRunning = running ?? (loaded ? String(loaded.member_running_local_desktops) : '');

  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (busy || !loaded) return;
    const parsed = BridgeSettings.safeParse({
      ...loaded,
      audit_retention_days: Number(shown),
      people_may_add_desktops: shownMayAdd,
      member_running_local_desktops: Number(shownRunning),
    });
    setNotice(null);
    if (shown.trim() === '' || shownRunning.trim() === '' || !parsed.success) {
      const fields: Record<string, string> = {};
      const wrong = (key: keyof BridgeSettings, raw: string) =>
        raw.trim() === '' || BridgeSettings.shape[key].safeParse(Number(raw)).success === false;
      if (wrong('audit_retention_days', shown))
        fields.audit_retention_days =
          'Keep audit entries for a whole number of days from 1 to 3650.';
      if (wrong('member_running_local_desktops', shownRunning))
        fields.member_running_local_desktops = `Let a member run a whole number of local desktops from 1 to ${String(MAX_DESKTOPS_PER_MEMBER)}.`;
      setErrors({ form: null, fields });
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
          } may add desktops; a member may run ${parsed.data.member_running_local_desktops} local desktops at once.`,
        );
        settings.reload();
      },
      (thrown: unknown) => {
        setBusy(false);
        setErrors(
          formErrorsFrom(thrown, ['audit_retention_days', 'member_running_local_desktops']),
        );
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
          <TextField
            id="member_running_local_desktops"
            label="Local desktops a member may run at once"
            type="number"
            inputMode="numeric"
            min={1}
            max={MAX_DESKTOPS_PER_MEMBER}
            required
            value={shownRunning}
            onChange={setRunning}
            hint="Each is an X server and its programs on this machine. Starting one more is refused until one stops (after its idle time). Admins' desktops are not counted."
            error={errors.fields.member_running_local_desktops}
          />
          <button type="submit" className="button button--primary" aria-disabled={busy}>
            {busy ? 'Saving…' : 'Save'}
          </button>
        </form>
      )}
    </section>
  );
}
