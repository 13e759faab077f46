// The transfers of one desktop this page started, each with a progress bar, its bytes so far, and
// Cancel while it runs — or how it ended (the bridge's sentence when it failed). Shown in the
// viewer's files panel and on a fleet tile.
import { binaryBytesText } from '@overlay-companion/protocol';
import { useStore } from 'zustand';
import { useShallow } from 'zustand/react/shallow';
import { cancelTransfer } from './transfers.js';
import { transferStore, type Transfer } from './transferStore.js';
import './files.css';

function statusText(t: Transfer): string {
  switch (t.status) {
    case 'running':
      return `${binaryBytesText(t.loaded)} of ${binaryBytesText(t.size)}`;
    case 'done':
      return t.direction === 'upload' ? 'Sent' : 'Fetched';
    case 'cancelled':
      return 'Cancelled';
    case 'failed':
      return 'Failed';
  }
}

export function TransferList({ desktopId }: { desktopId: string }) {
  const transfers = useStore(
    transferStore,
    useShallow((s) => s.transfers.filter((t) => t.desktopId === desktopId)),
  );
  if (transfers.length === 0) return null;
  return (
    <ul className="transfers" aria-label="Transfers" data-testid="transfers">
      {transfers.map((t) => (
        <li
          key={t.id}
          className={`transfers__item transfers__item--${t.status}`}
          data-testid="transfer"
          data-name={t.name}
          data-status={t.status}
        >
          <span className="transfers__name">
            {t.direction === 'upload' ? '↑ ' : '↓ '}
            {t.name}
          </span>
          <progress
            value={t.status === 'done' ? t.size : t.loaded}
            max={Math.max(1, t.size)}
            aria-label={`${t.direction === 'upload' ? 'Sending' : 'Fetching'} ${t.name}`}
            data-testid="transfer-progress"
          />
          <span className="transfers__status" data-testid="transfer-status">
            {statusText(t)}
          </span>
          {t.status === 'running' && (
            <button
              type="button"
              data-testid="transfer-cancel"
              onClick={() => cancelTransfer(t.id)}
            >
              Cancel<span className="visually-hidden"> {t.name}</span>
            </button>
          )}
          {t.status === 'failed' && (
            <p className="transfers__error" role="alert" data-testid="transfer-error">
              {t.error}
            </p>
          )}
        </li>
      ))}
    </ul>
  );
}
