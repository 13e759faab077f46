// One line of the action log: when, the tool, the AI's reason for it when it gave one (its
// `intent`, kept on the audit entry's detail line, shown as plain text like the approval panel
// shows it), the argument summary, then the decision, who approved, the outcome and the client.
import { intentOfDetail, type AuditEntryView } from '@overlay-companion/protocol';
import { formatDateTime, isoTime } from '../pages/common/time.js';
import { describeDecision } from '../pages/console/audit/auditQuery.js';
import { intentText } from '../confirm/describe.js';

export function ActionLogEntry({ entry }: { entry: AuditEntryView }) {
  const intent = intentText(intentOfDetail(entry.detail));
  return (
    <li data-testid="action-log-entry">
      <time dateTime={isoTime(entry.at)}>{formatDateTime(entry.at, true)}</time>{' '}
      <strong>{entry.tool}</strong>
      {intent !== undefined && (
        <>
          {' '}
          <q className="action-log__intent" data-testid="action-log-intent">
            {intent}
          </q>
        </>
      )}{' '}
      <code>{entry.summary}</code>
      <span className="action-log__facts">
        {describeDecision(entry.decision)}
        {entry.approved_by !== null ? ` · approved by ${entry.approved_by}` : ''} ·{' '}
        {entry.outcome ?? '—'}
        {entry.client_name !== null ? ` · ${entry.client_name}` : ''}
      </span>
    </li>
  );
}
