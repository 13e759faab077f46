// Adding or changing a desktop: name, kind (when adding), the kind's connection parameters and
// a write-only password — never shown, "unchanged" while one is stored, cleared only on purpose.
// An admin adding one may make someone else its owner.
import {
  DESKTOP_KINDS,
  RDP_KEYBOARDS,
  type DesktopKind,
  type DesktopView,
  type PersonView,
} from '@overlay-companion/protocol';
import { useRef, useState, type FormEvent } from 'react';
import { ErrorMessage } from '../../common/Alert.js';
import { CheckboxField, SelectField, TextField } from '../../common/Field.js';
import { NO_ERRORS, formErrorsFrom, type FormErrors } from '../../common/errors.js';
import { useFocusFirstError } from '../../common/useFocusFirstError.js';
import {
  DEFAULT_PORTS,
  KIND_LABELS,
  LABELS,
  emptyFields,
  fieldsOf,
  shows,
  type DesktopFields,
} from './desktopForm.js';

const KIND_OPTIONS = DESKTOP_KINDS.map((kind) => ({ value: kind, label: KIND_LABELS[kind] }));
const SECURITY_OPTIONS = [
  { value: '', label: 'Negotiate (default)' },
  { value: 'nla', label: 'NLA' },
  { value: 'tls', label: 'TLS' },
  { value: 'rdp', label: 'RDP encryption' },
  { value: 'any', label: 'Any' },
] as const;
const KEYBOARD_OPTIONS = [
  { value: '', label: 'Default (en-us-qwerty)' },
  ...RDP_KEYBOARDS.map((layout) => ({ value: layout, label: layout })),
];
const SERVER_FIELDS = Object.keys(LABELS);

export interface DesktopFormProps {
  /** The desktop being changed; undefined to add one. */
  desktop?: DesktopView;
  /** Admins adding a desktop pick its owner from these (empty: themselves). */
  people?: readonly PersonView[];
  myId: string;
  /** Sends the form; rejects with the bridge's refusal. */
  onSubmit: (fields: DesktopFields, ownerId: string) => Promise<Record<string, string> | null>;
  onCancel?: () => void;
}

export function DesktopForm({ desktop, people, myId, onSubmit, onCancel }: DesktopFormProps) {
  const [fields, setFields] = useState<DesktopFields>(() =>
    desktop === undefined ? emptyFields() : fieldsOf(desktop),
  );
  const [ownerId, setOwnerId] = useState(myId);
  const [busy, setBusy] = useState(false);
  const [errors, setErrors] = useState<FormErrors>(NO_ERRORS);
  const form = useRef<HTMLFormElement>(null);
  useFocusFirstError(form, errors);
  const prefix = desktop === undefined ? 'new-desktop' : `desktop-${desktop.id}`;
  const show = shows(fields.kind);
  const set =
    <K extends keyof DesktopFields>(key: K) =>
    (value: DesktopFields[K]) =>
      setFields((previous) => ({ ...previous, [key]: value }));

  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (busy) return;
    setBusy(true);
    setErrors(NO_ERRORS);
    onSubmit(fields, ownerId).then(
      (fieldErrors) => {
        setBusy(false);
        if (fieldErrors !== null) {
          setErrors({ form: null, fields: fieldErrors });
          return;
        }
        if (desktop === undefined) setFields(emptyFields(fields.kind));
      },
      (thrown: unknown) => {
        setBusy(false);
        const found = formErrorsFrom(thrown, [...SERVER_FIELDS, 'params.host', 'params.port']);
        // The bridge names parameters as params.x; the form's fields are x.
        const renamed = Object.fromEntries(
          Object.entries(found.fields).map(([key, text]) => [key.replace(/^params\./, ''), text]),
        );
        setErrors({ form: found.form, fields: renamed });
      },
    );
  };

  const passwordHint =
    desktop?.has_password === true
      ? 'A password is stored; it is never shown. Type a new one to replace it. Changing the host or port removes it unless you type it again.'
      : 'Stored encrypted on the bridge and never shown again.';

  return (
    <form
      ref={form}
      className="form"
      onSubmit={submit}
      noValidate
      aria-label={desktop === undefined ? 'Add a desktop' : `Change ${desktop.name}`}
    >
      <ErrorMessage message={errors.form} />
      <TextField
        id={`${prefix}-name`}
        label={LABELS.name ?? 'Name'}
        value={fields.name}
        onChange={set('name')}
        required
        maxLength={64}
        autoComplete="off"
        error={errors.fields.name}
      />
      {desktop === undefined ? (
        <SelectField
          id={`${prefix}-kind`}
          label={LABELS.kind ?? 'Kind'}
          value={fields.kind}
          onChange={(kind: DesktopKind) =>
            setFields((previous) => ({
              ...previous,
              kind,
              // A port still at the old kind's default follows the new kind.
              port:
                previous.port === DEFAULT_PORTS[previous.kind]
                  ? DEFAULT_PORTS[kind]
                  : previous.port,
            }))
          }
          options={KIND_OPTIONS}
          error={errors.fields.kind}
        />
      ) : null}
      {show.host ? (
        <TextField
          id={`${prefix}-host`}
          label={LABELS.host ?? 'Host'}
          value={fields.host}
          onChange={set('host')}
          required
          spellCheck={false}
          autoComplete="off"
          hint="A host name or IP address, as the bridge (or guacd) reaches it."
          error={errors.fields.host}
        />
      ) : null}
      {show.port ? (
        <TextField
          id={`${prefix}-port`}
          label={LABELS.port ?? 'Port'}
          type="number"
          inputMode="numeric"
          min={1}
          max={65535}
          value={fields.port}
          onChange={set('port')}
          required
          error={errors.fields.port}
        />
      ) : null}
      {show.username ? (
        <TextField
          id={`${prefix}-username`}
          label={LABELS.username ?? 'Username'}
          value={fields.username}
          onChange={set('username')}
          spellCheck={false}
          autoComplete="off"
          error={errors.fields.username}
        />
      ) : null}
      {show.password ? (
        <>
          <TextField
            id={`${prefix}-password`}
            label={LABELS.password ?? 'Password'}
            type="password"
            value={fields.password}
            onChange={set('password')}
            autoComplete="new-password"
            placeholder={desktop?.has_password === true ? 'unchanged' : undefined}
            disabled={fields.clearPassword}
            hint={passwordHint}
            error={errors.fields.password}
          />
          {desktop?.has_password === true ? (
            <CheckboxField
              id={`${prefix}-clear-password`}
              label="Remove the stored password"
              checked={fields.clearPassword}
              onChange={set('clearPassword')}
            />
          ) : null}
        </>
      ) : null}
      {show.rdp ? (
        <>
          <TextField
            id={`${prefix}-domain`}
            label={LABELS.domain ?? 'Domain'}
            value={fields.domain}
            onChange={set('domain')}
            spellCheck={false}
            autoComplete="off"
            error={errors.fields.domain}
          />
          <SelectField
            id={`${prefix}-security`}
            label={LABELS.security ?? 'Security'}
            value={fields.security}
            onChange={set('security')}
            options={SECURITY_OPTIONS}
            error={errors.fields.security}
          />
          <SelectField
            id={`${prefix}-keyboard`}
            label={LABELS.keyboard ?? 'Keyboard layout'}
            value={fields.keyboard}
            onChange={set('keyboard')}
            options={KEYBOARD_OPTIONS}
            hint="The remote desktop's own layout: characters outside it may not arrive."
            error={errors.fields.keyboard}
          />
        </>
      ) : null}
      {show.idleStop ? (
        <TextField
          id={`${prefix}-idle`}
          label={LABELS.idle_stop_minutes ?? 'Stop after idle (minutes)'}
          type="number"
          inputMode="numeric"
          min={1}
          max={1440}
          value={fields.idleStopMinutes}
          onChange={set('idleStopMinutes')}
          hint="Empty: it keeps running until the bridge stops."
          error={errors.fields.idle_stop_minutes}
        />
      ) : null}
      <TextField
        id={`${prefix}-width`}
        label={LABELS.width ?? 'Width'}
        type="number"
        inputMode="numeric"
        value={fields.width}
        onChange={set('width')}
        hint="With a height: a fixed size in pixels. Empty: it follows the owner's monitor layout."
        error={errors.fields.width}
      />
      <TextField
        id={`${prefix}-height`}
        label={LABELS.height ?? 'Height'}
        type="number"
        inputMode="numeric"
        value={fields.height}
        onChange={set('height')}
        error={errors.fields.height}
      />
      <CheckboxField
        id={`${prefix}-read-only`}
        label="View only: no input reaches this desktop"
        checked={fields.readOnly}
        onChange={set('readOnly')}
      />
      {desktop === undefined && people !== undefined && people.length > 0 ? (
        <SelectField
          id={`${prefix}-owner`}
          label={LABELS.owner_id ?? 'Owner'}
          value={ownerId}
          onChange={setOwnerId}
          options={people
            .filter((p) => !p.disabled)
            .map((p) => ({
              value: p.id,
              label: p.id === myId ? `${p.display_name} (you)` : p.display_name,
            }))}
          error={errors.fields.owner_id}
        />
      ) : null}
      <div className="actions">
        <button type="submit" className="button button--primary" aria-disabled={busy}>
          {busy ? 'Saving…' : desktop === undefined ? 'Add desktop' : 'Save changes'}
        </button>
        {onCancel === undefined ? null : (
          <button type="button" className="button" onClick={onCancel}>
            Cancel
          </button>
        )}
      </div>
    </form>
  );
}
