// How the audit log names a change a person made to a desktop record — created, changed (its
// settings, its recording or file-transfer policy), removed, its grants — so the desktop API, the
// recording setting and the transfer policy write one wording: `desktop "<name>" (<id>)`.
import type { DesktopRecord, PersonRecord } from '../store/types.js';
import type { AuditLog } from './auditLog.js';

export type DesktopChangeKind =
  'desktop_created' | 'desktop_changed' | 'desktop_removed' | 'desktop_grant_changed';

export function auditDesktopChange(
  audit: AuditLog,
  person: PersonRecord,
  kind: DesktopChangeKind,
  desktop: Pick<DesktopRecord, 'id' | 'name'>,
  detail: string,
  /** Also hand the desktop's id to the audit's taps (the recording's event track). */
  options: { tapped?: boolean } = {},
): void {
  audit.record({
    kind,
    actor: 'person',
    personId: person.id,
    personName: person.displayName,
    summary: `desktop "${desktop.name}" (${desktop.id})`,
    outcome: 'ok',
    detail,
    ...(options.tapped === true ? { desktopId: desktop.id } : {}),
  });
}
