// The admins' storage view on /recordings: what the recordings take in all, against the limits
// that keep them (age, total, per desktop, free space kept on the disk), the disk's free space,
// the oldest recording, and the size per desktop and per person (the desktop's owner when it was
// recorded). The limits are changed with PUT /api/settings/recording.
import { api } from '../net/api.js';
import { ErrorMessage } from '../pages/common/Alert.js';
import { formatDateTime, isoTime } from '../pages/common/time.js';
import { useLoad } from '../pages/common/useLoad.js';
import { followInApp } from '../pages/console/navigation.js';
import { formatBytes } from './recordingText.js';
import { RECORDINGS_STORAGE_API, RecordingStorage } from './recordingsWire.js';
import { RECORDINGS_PAGE } from './showMe.js';

const loadStorage = () => api.get(RECORDINGS_STORAGE_API, RecordingStorage);

export function StorageSection() {
  const storage = useLoad(loadStorage);
  return (
    <section className="recordings-storage" aria-labelledby="recordings-storage-title">
      <h2 id="recordings-storage-title">Storage</h2>
      {storage.error !== null ? <ErrorMessage message={storage.error} /> : null}
      {storage.data === undefined && storage.error === null ? <p role="status">Loading…</p> : null}
      {storage.data !== undefined ? <StorageView storage={storage.data} /> : null}
    </section>
  );
}

/** How the limits read in words. */
export function limitsText(limits: RecordingStorage['limits']): string {
  const age =
    limits.max_age_days === null
      ? 'kept whatever their age'
      : `kept for ${limits.max_age_days} day${limits.max_age_days === 1 ? '' : 's'}`;
  const total =
    limits.max_total_bytes === null
      ? 'no limit in all'
      : `at most ${formatBytes(limits.max_total_bytes)} in all`;
  const desktop =
    limits.max_desktop_bytes === null
      ? 'no limit per desktop'
      : `${formatBytes(limits.max_desktop_bytes)} per desktop`;
  const free =
    limits.min_free_bytes === 0
      ? ''
      : `; recording pauses while the disk has less than ${formatBytes(limits.min_free_bytes)} free`;
  return `Recordings are ${age}, ${total} and ${desktop}, the oldest deleted first${free}.`;
}

export function StorageView({ storage }: { storage: RecordingStorage }) {
  const { disk, oldest } = storage;
  const where = storage.location === 's3' ? 'in the S3 bucket' : "in the bridge's data folder";
  return (
    <div data-testid="recordings-storage">
      <p data-testid="storage-total">
        {storage.count} recording{storage.count === 1 ? '' : 's'} ({storage.live_count} being made
        now) take <strong>{formatBytes(storage.total_bytes)}</strong> {where}
        {storage.limits.max_total_bytes === null
          ? ''
          : ` of the ${formatBytes(storage.limits.max_total_bytes)} they may take`}
        .{' '}
        {disk === null
          ? 'The free space on the disk cannot be read.'
          : `The disk has ${formatBytes(disk.free_bytes)} free of ${formatBytes(disk.size_bytes)}.`}
      </p>
      <p data-testid="storage-limits">{limitsText(storage.limits)}</p>
      {storage.held !== null ? (
        <p role="alert" className="recordings-storage__held">
          Recording is paused on every desktop: {storage.held}.
        </p>
      ) : null}
      {oldest !== null ? (
        <p data-testid="storage-oldest">
          The oldest:{' '}
          <a
            href={`${RECORDINGS_PAGE}/${encodeURIComponent(oldest.id)}`}
            onClick={(event) =>
              followInApp(event, `${RECORDINGS_PAGE}/${encodeURIComponent(oldest.id)}`)
            }
          >
            {oldest.desktop.name},{' '}
            <time dateTime={isoTime(oldest.started_at)}>{formatDateTime(oldest.started_at)}</time>
          </a>{' '}
          ({formatBytes(oldest.bytes)}).
        </p>
      ) : null}
      {storage.desktops.length > 0 ? (
        <div className="table-scroll" tabIndex={0} role="region" aria-label="Storage per desktop">
          <table className="table" data-testid="storage-desktops">
            <caption>Per desktop</caption>
            <thead>
              <tr>
                <th scope="col">Desktop</th>
                <th scope="col">Recordings</th>
                <th scope="col">Size</th>
                <th scope="col">Oldest</th>
              </tr>
            </thead>
            <tbody>
              {storage.desktops.map((row) => (
                <tr key={row.desktop.id}>
                  <th scope="row" className="table__name">
                    {row.desktop.name}
                  </th>
                  <td className="table__nowrap">
                    {row.count}
                    {row.live > 0 ? ' (one being made)' : ''}
                  </td>
                  <td className="table__nowrap">{formatBytes(row.bytes)}</td>
                  <td className="table__nowrap">
                    <time dateTime={isoTime(row.oldest_started_at)}>
                      {formatDateTime(row.oldest_started_at)}
                    </time>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      ) : null}
      {storage.people.length > 0 ? (
        <div className="table-scroll" tabIndex={0} role="region" aria-label="Storage per person">
          <table className="table" data-testid="storage-people">
            <caption>Per person (whose desktop it was)</caption>
            <thead>
              <tr>
                <th scope="col">Person</th>
                <th scope="col">Recordings</th>
                <th scope="col">Size</th>
              </tr>
            </thead>
            <tbody>
              {storage.people.map((row) => (
                <tr key={row.person?.id ?? ''}>
                  <th scope="row" className="table__name">
                    {row.person?.name ?? 'No owner on record'}
                  </th>
                  <td className="table__nowrap">{row.count}</td>
                  <td className="table__nowrap">{formatBytes(row.bytes)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      ) : null}
    </div>
  );
}
