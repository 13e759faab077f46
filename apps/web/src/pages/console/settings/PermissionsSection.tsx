// The person's permission toggles (what an AI may do for them) and their audit privacy choices,
// each saved on change (PUT /api/me/permissions) and then re-read from the bridge, so the page
// always shows what is in force. Labels come from the protocol, the same words denial messages
// quote.
import {
  API,
  APPROVAL_PREFERENCE_NAMES,
  AUDIT_PREFERENCE_NAMES,
  PERMISSION_DEFAULTS,
  PERMISSION_LABELS,
  PERMISSION_NAMES,
  type Permissions,
  type PersonSettingName,
} from '@overlay-companion/protocol';
import { useState } from 'react';
import { AnyAnswer, api } from '../../../net/api.js';
import { ErrorMessage, StatusMessage } from '../../common/Alert.js';
import { CheckboxField } from '../../common/Field.js';
import { errorText } from '../../common/errors.js';
import { refreshMe } from '../../common/useMe.js';

const HINTS: Partial<Record<PersonSettingName, string>> = {
  clipboard_read: 'Off until you turn it on.',
  read_key_events:
    'Off until you turn it on. While an AI reads your key presses, the viewer says so at the top.',
  audit_typed_text: 'Off: the audit log records that text was typed, not what.',
  audit_screenshots: 'Off: screenshots are never stored.',
};

function defaultText(name: PersonSettingName): string {
  return `Default: ${PERMISSION_DEFAULTS[name] ? 'on' : 'off'}.`;
}

export function PermissionsSection({ permissions }: { permissions: Permissions }) {
  // The switch being saved shows its new position until the bridge's answer is read back.
  const [saving, setSaving] = useState<{ name: PersonSettingName; value: boolean } | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [notice, setNotice] = useState<string | null>(null);

  const change = (name: PersonSettingName, value: boolean) => {
    // One change at a time (the switches stay focusable; a press during a save is ignored).
    if (saving !== null) return;
    setSaving({ name, value });
    setError(null);
    setNotice(null);
    api
      .put(API.myPermissions, { [name]: value }, AnyAnswer)
      .then(() => refreshMe())
      .then(
        () => {
          setSaving(null);
          setNotice(`Saved: “${PERMISSION_LABELS[name]}” is ${value ? 'on' : 'off'}.`);
        },
        (thrown: unknown) => {
          setSaving(null);
          setError(`Could not save “${PERMISSION_LABELS[name]}”: ${errorText(thrown)}`);
        },
      );
  };

  const toggle = (name: PersonSettingName) => (
    <CheckboxField
      key={name}
      id={`permission-${name}`}
      label={PERMISSION_LABELS[name]}
      checked={saving?.name === name ? saving.value : permissions[name]}
      busy={saving?.name === name}
      hint={`${HINTS[name] ?? ''} ${defaultText(name)}`.trim()}
      onChange={(value) => change(name, value)}
    />
  );

  return (
    <section aria-labelledby="permissions-title" className="section">
      <h2 id="permissions-title">Permissions</h2>
      <p>
        What an AI may do through your tokens, on top of the mode you choose in the viewer. A call
        these switches forbid is refused, and the AI is told which switch to ask you about.
      </p>
      <ErrorMessage message={error} />
      <StatusMessage message={notice} />
      <fieldset className="fieldset">
        <legend>What the AI may do</legend>
        {PERMISSION_NAMES.map(toggle)}
      </fieldset>
      <fieldset className="fieldset">
        <legend>Audit log privacy</legend>
        {AUDIT_PREFERENCE_NAMES.map(toggle)}
      </fieldset>
      <fieldset className="fieldset">
        <legend>Approvals without a window</legend>
        {APPROVAL_PREFERENCE_NAMES.map(toggle)}
      </fieldset>
    </section>
  );
}
