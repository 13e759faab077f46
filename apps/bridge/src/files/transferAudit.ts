// One audit entry per file transfer, whichever way and however it ended: the file's name, its
// size and SHA-256 (of the bytes that crossed, when all of them did), the direction, who moved
// it and the desktop. The summary is what the audit page lists; the detail holds the digest.
import type { AuditLog } from '../audit/auditLog.js';
import type { DesktopRecord, PersonRecord } from '../store/types.js';

export interface TransferAudit {
  audit: Pick<AuditLog, 'record'>;
  person: Pick<PersonRecord, 'id' | 'displayName'>;
  desktop: Pick<DesktopRecord, 'id' | 'name'>;
  direction: 'upload' | 'download';
  name: string;
  size: number;
  /** Hex digest of every byte moved; null when the transfer did not complete. */
  sha256: string | null;
  /** 'ok', 'cancelled …' or 'failed: …'. */
  outcome: string;
  durationMs: number;
}

export function auditTransfer(entry: TransferAudit): void {
  const { person, desktop, direction, name, size, sha256 } = entry;
  entry.audit.record({
    kind: 'file_transfer',
    actor: 'person',
    personId: person.id,
    personName: person.displayName,
    summary: `${direction === 'upload' ? 'sent' : 'fetched'} ${JSON.stringify(name)} (${size} bytes) ${direction === 'upload' ? 'to' : 'from'} desktop "${desktop.name}"`,
    outcome: entry.outcome,
    durationMs: entry.durationMs,
    detail: `direction=${direction} file=${JSON.stringify(name)} size=${size} sha256=${sha256 ?? 'none (incomplete)'} desktop=${desktop.id}`,
    desktopId: desktop.id,
  });
}
