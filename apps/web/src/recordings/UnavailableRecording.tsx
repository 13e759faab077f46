// A recording this bridge cannot reach (kept on an S3 store it is not configured for): the
// bridge's own words for why (an admin reads where it is and what to do, anyone else only that an
// admin can help), in the list's row and on its own page instead of the player, and for an admin
// — the only one the bridge lets — "Remove from list", asked first, saying its files stay where
// they are. Nothing to play or export: every read of it is refused (503).
import { useCallback, useState } from 'react';
import { api, AnyAnswer } from '../net/api.js';
import { ErrorMessage } from '../pages/common/Alert.js';
import { ConfirmButton } from '../pages/common/ConfirmButton.js';
import { errorText } from '../pages/common/errors.js';
import { formatDateTime } from '../pages/common/time.js';
import { recordingPath, type RecordingSummary } from './recordingsWire.js';

/** The question asked before removing: the row goes, the files stay (the bridge cannot reach them). */
export const REMOVE_QUESTION =
  'Remove this recording from the list? Its files are not deleted: they stay where they are (this bridge cannot reach them), and the audit says where.';

export interface UnavailableProps {
  recording: RecordingSummary;
  /** The bridge lets an admin alone remove such a recording from the list. */
  isAdmin: boolean;
  /** After the bridge removed it: back to the list, read again. */
  onRemoved: () => void;
}

/** Why it cannot be played here, as the bridge said it to this person. */
export function UnavailableReason({ recording }: { recording: RecordingSummary }) {
  return (
    <span data-testid="recording-unavailable">
      Cannot be played or exported here. {recording.unavailable}
    </span>
  );
}

/** "Remove from list" for an admin; nothing for anyone else (the bridge would refuse them). */
export function RemoveFromList({ recording, isAdmin, onRemoved }: UnavailableProps) {
  const [error, setError] = useState<string | null>(null);
  const remove = useCallback(() => {
    setError(null);
    api
      .del(recordingPath(recording.id), undefined, AnyAnswer)
      .then(onRemoved, (thrown: unknown) => setError(errorText(thrown)));
  }, [recording.id, onRemoved]);
  if (!isAdmin || recording.unavailable === undefined) return null;
  return (
    <span className="recording-remove" data-testid="recording-remove">
      <ConfirmButton
        label="Remove from list"
        accessibleLabel={`Remove the recording of ${recording.desktop.name} from ${formatDateTime(recording.started_at)} from the list`}
        question={REMOVE_QUESTION}
        confirmLabel="Remove from list"
        onConfirm={remove}
      />
      {error !== null ? <ErrorMessage message={error} /> : null}
    </span>
  );
}

/** /recordings/<id> of such a recording: why, and the removal, instead of the player. */
export function UnavailableView({ recording, isAdmin, onRemoved }: UnavailableProps) {
  return (
    <div className="recording-view" data-testid="recording-unavailable-view">
      <h2 className="recording-view__title">
        Recording of {recording.desktop.name}, {formatDateTime(recording.started_at)}
      </h2>
      <p role="status">
        <UnavailableReason recording={recording} />
      </p>
      <RemoveFromList recording={recording} isAdmin={isAdmin} onRemoved={onRemoved} />
    </div>
  );
}
