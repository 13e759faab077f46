// Over the dimmed last picture while the desktop is away: what is away (the bridge, or the
// desktop behind it), in plain words, when the next try is, and a way to try now.
import { useConnectionData } from '../store/index.js';
import { describeConnection } from './describeConnection.js';
import { useNow } from './useNow.js';

export function ReconnectNotice({ onReconnectNow }: { onReconnectNow: () => void }) {
  const connection = useConnectionData();
  const away = connection.phase === 'reconnecting' || connection.phase === 'failed';
  const now = useNow(connection.phase === 'reconnecting');
  if (!away || connection.lastError === null) return null;
  const status = describeConnection(connection, now);
  return (
    <div className="reconnect-notice" data-testid="reconnect-notice" title={status.code}>
      <p className="reconnect-notice__what">{status.detail}</p>
      <p className="reconnect-notice__when">
        {connection.phase === 'failed'
          ? 'This will not fix itself; try again when the cause is gone.'
          : status.label}
      </p>
      <button type="button" onClick={onReconnectNow}>
        Reconnect now
      </button>
    </div>
  );
}
