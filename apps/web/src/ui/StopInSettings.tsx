// "To stop it, turn off “<switch>” in Settings": the way out the reading banners offer, with
// Settings opened in a new tab so this window — the person's control plane — stays open.
import { PAGES, PERMISSION_LABELS, type PermissionName } from '@overlay-companion/protocol';

export function StopInSettings({
  permission,
  className,
}: {
  permission: PermissionName;
  className: string;
}) {
  return (
    <span className={className}>
      To stop it, turn off “{PERMISSION_LABELS[permission]}” in{' '}
      <a href={PAGES.settings} target="_blank" rel="noopener noreferrer">
        Settings
        <span className="visually-hidden"> (opens in a new tab)</span>
      </a>
      .
    </span>
  );
}
