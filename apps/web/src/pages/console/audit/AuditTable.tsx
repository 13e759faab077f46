// One page of audit entries as a table. Everything in it that people or AIs typed (names,
// token and client names, summaries) is rendered by React as text.
import type { AuditEntryView } from '@overlay-companion/protocol';
import { Fragment, type ReactNode } from 'react';
import { formatDateTime, isoTime } from '../../common/time.js';
import { KIND_LABELS, describeActor, describeDuration, screenshotPath } from './auditQuery.js';
import { auditDecisionSentence } from '../../../activity/decisionWords.js';
import { ShowMeLink } from '../../../recordings/ShowMeLink.js';
import { desktopNameOfDetail } from '../../../recordings/showMe.js';

export function AuditTable({ entries }: { entries: readonly AuditEntryView[] }) {
  if (entries.length === 0) return <p>No entries match these filters.</p>;
  return (
    <div className="table-scroll" tabIndex={0} role="region" aria-label="Audit entries">
      <table className="table table--audit">
        <thead>
          <tr>
            <th scope="col">When</th>
            <th scope="col">What</th>
            <th scope="col">Who</th>
            <th scope="col">Details</th>
            <th scope="col">Decision</th>
            <th scope="col">Approved by</th>
            <th scope="col">Outcome</th>
            <th scope="col">Took</th>
            <th scope="col">Screenshot</th>
            <th scope="col">Recording</th>
          </tr>
        </thead>
        <tbody>
          {entries.map((entry) => (
            <tr key={entry.id}>
              <td className="table__nowrap">
                <time dateTime={isoTime(entry.at)}>{formatDateTime(entry.at, true)}</time>
              </td>
              <td>
                {KIND_LABELS[entry.kind]}
                {entry.tool !== null ? (
                  <>
                    {' '}
                    <code>{breakAtUnderscores(entry.tool)}</code>
                  </>
                ) : null}
              </td>
              <td>{describeActor(entry)}</td>
              <td className="table__text">
                {entry.summary ?? ''}
                {entry.detail !== null ? (
                  <span className="table__detail">{entry.detail}</span>
                ) : null}
              </td>
              <td>{auditDecisionSentence(entry)}</td>
              <td>{entry.approved_by ?? '—'}</td>
              <td>{entry.outcome === null ? '—' : breakAtUnderscores(entry.outcome)}</td>
              <td className="table__nowrap">{describeDuration(entry.duration_ms)}</td>
              <td>
                {entry.has_screenshot ? (
                  <a
                    href={screenshotPath(entry.id)}
                    target="_blank"
                    rel="noopener noreferrer"
                    aria-label={`Screenshot of entry ${entry.id} (opens in a new tab)`}
                  >
                    View
                  </a>
                ) : (
                  '—'
                )}
              </td>
              <td>
                <ShowMeLink
                  at={entry.at}
                  desktopName={desktopNameOfDetail(entry.detail)}
                  otherwise="—"
                />
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

/**
 * A tool name or outcome code (set_screenshot_frequency, viewer_unavailable) that may wrap only
 * after its underscores: whole words stay whole, and a narrow table still fits its window.
 */
function breakAtUnderscores(code: string): ReactNode {
  const parts = code.split('_');
  return parts.map((part, i) => (
    <Fragment key={i}>
      {part}
      {i < parts.length - 1 && (
        <>
          _<wbr />
        </>
      )}
    </Fragment>
  ));
}
