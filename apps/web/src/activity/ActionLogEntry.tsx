// One line of the action log, as sentences: when, what the AI did ("Click (left) at 120, 340",
// "Type “hello”" when the person keeps typed text, else its length), the AI's reason when it
// gave one (its `intent`, from the audit entry's detail line, shown as plain text like the
// approval panel shows it), then how it was decided and how it ended ("Asked · approved by Ada ·
// done in 40 ms": decisionWords.ts, as the AI's timeline cards word it), the client, and "Show
// me" when a recording holds that moment. The tool's name and the raw arguments stay available on hover
// for whoever reads the audit log.
import { intentOfDetail, type AuditEntryView } from '@overlay-companion/protocol';
import { formatDateTime, isoTime } from '../pages/common/time.js';
import { intentText } from '../confirm/describe.js';
import { actionSentence } from './actionSentence.js';
import { auditCallSentence } from './decisionWords.js';
import { ShowMeLink } from '../recordings/ShowMeLink.js';
import { desktopNameOfDetail } from '../recordings/showMe.js';

export function ActionLogEntry({ entry }: { entry: AuditEntryView }) {
  const intent = intentText(intentOfDetail(entry.detail));
  return (
    <li data-testid="action-log-entry">
      <time dateTime={isoTime(entry.at)}>{formatDateTime(entry.at, true)}</time>{' '}
      <strong title={`${entry.tool ?? ''} ${entry.summary ?? ''}`.trim()}>
        {actionSentence(entry.tool, entry.summary)}
      </strong>
      {intent !== undefined && (
        <>
          {' '}
          <span className="action-log__because">because</span>{' '}
          <q className="action-log__intent" data-testid="action-log-intent">
            {intent}
          </q>
        </>
      )}
      <span className="action-log__facts">
        {auditCallSentence(entry)}
        {entry.client_name !== null ? ` · ${entry.client_name}` : ''}
      </span>{' '}
      <ShowMeLink at={entry.at} desktopName={desktopNameOfDetail(entry.detail)} newTab />
    </li>
  );
}
