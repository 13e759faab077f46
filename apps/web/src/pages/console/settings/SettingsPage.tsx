// /settings: the person's permission toggles and audit privacy, their password, and for admins
// the bridge-wide settings.
import type { Me } from '@overlay-companion/protocol';
import { BridgeSettingsSection } from './BridgeSettingsSection.js';
import { PasswordSection } from './PasswordSection.js';
import { PermissionsSection } from './PermissionsSection.js';

export function SettingsPage({ me }: { me: Me }) {
  return (
    <>
      <PermissionsSection permissions={me.permissions} />
      <PasswordSection person={me.person} />
      {me.person.role === 'admin' ? <BridgeSettingsSection /> : null}
    </>
  );
}
