// In a mirror window: the AI is waiting for the person's answer in their control window. Shown
// over the desktop area (the display does not move), with the time left and Stop, which works
// from any window; the answer itself is given in the control window's panel.
import { useStore } from 'zustand';
import { controlStore } from '../store/control.js';
import { useNow } from '../ui/useNow.js';

export function ApprovalsElsewhere({ onStop }: { onStop: () => void }) {
  const requests = useStore(controlStore, (s) => s.approvalsElsewhere);
  const now = useNow(requests.length > 0, 1000);
  const first = requests[0];
  if (first === undefined) return null;
  const left = Math.max(0, Math.ceil((first.receivedAt + first.deadline_in_ms - now) / 1000));
  return (
    <div className="approvals-elsewhere" role="alert" data-testid="approvals-elsewhere">
      <span>
        The AI waits for your approval in your other viewer window: <strong>{first.title}</strong>
        {requests.length > 1 ? ` (and ${requests.length - 1} more)` : ''} — denied automatically in{' '}
        {left} s.
      </span>
      <button type="button" onClick={onStop}>
        Deny all and Stop
      </button>
    </div>
  );
}
