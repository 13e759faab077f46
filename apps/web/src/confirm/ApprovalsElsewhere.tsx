// In a mirror window: the AI is waiting for the person's answer in their control window. Shown
// over the desktop area (the display does not move), with the time left, Approve and Deny (the
// answer goes to the control window through the bridge, approval_answer; the first answer in
// any window wins) and Stop, which works from any window. Approve and Deny take only a real
// click or key press, and Approve only once armed (answerElsewhere.ts). A request the control
// window lists without an id (Run / Discard after a take-over) is answered there, and a window
// of someone who is not in charge (a watcher) or the headless viewer gets no answers to give.
import { useStore } from 'zustand';
import { controlStore } from '../store/control.js';
import { desktopStateStore } from '../store/desktopState.js';
import { useNow } from '../ui/useNow.js';
import { pressAnswers } from './answerElsewhere.js';
import { APPROVE_ARM_MS } from './ConfirmDialog.js';

export interface ApprovalsElsewhereProps {
  onStop: () => void;
  onAnswer: (requestId: string, approved: boolean) => void;
}

export function ApprovalsElsewhere({ onStop, onAnswer }: ApprovalsElsewhereProps) {
  const requests = useStore(controlStore, (s) => s.approvalsElsewhere);
  const headless = useStore(controlStore, (s) => s.headless);
  const you = useStore(desktopStateStore, (s) => s.people?.you);
  // The bridge refuses anyone else's answer; this only keeps buttons away from who cannot answer.
  const mayAnswer = !headless && (you === undefined || (you.in_charge && you.access !== 'view'));
  const now = useNow(requests.length > 0, 200);
  const first = requests[0];
  if (first === undefined) return null;
  const left = Math.max(0, Math.ceil((first.receivedAt + first.deadline_in_ms - now) / 1000));
  const requestId = mayAnswer ? first.request_id : undefined;
  const armed = now - first.frontAt >= APPROVE_ARM_MS;
  const answering =
    (approved: boolean) =>
    (event: React.MouseEvent<HTMLButtonElement>): void => {
      if (requestId === undefined) return;
      if (!pressAnswers(event.nativeEvent, approved, first.frontAt, Date.now())) return;
      onAnswer(requestId, approved);
    };
  return (
    <div className="approvals-elsewhere" role="alert" data-testid="approvals-elsewhere">
      <span>
        {requestId === undefined
          ? 'The AI waits for your answer in your control window: '
          : 'The AI asks for your approval: '}
        <strong>{first.title}</strong>
        {requests.length > 1 ? ` (and ${requests.length - 1} more)` : ''} — denied automatically in{' '}
        {left} s.
      </span>
      {requestId !== undefined && (
        <>
          <button
            type="button"
            className="approvals-elsewhere__deny"
            data-testid="elsewhere-deny"
            onClick={answering(false)}
          >
            Deny
          </button>
          <button
            type="button"
            className="approvals-elsewhere__approve"
            data-testid="elsewhere-approve"
            aria-disabled={!armed}
            onClick={answering(true)}
          >
            Approve
          </button>
        </>
      )}
      <button type="button" onClick={onStop}>
        Deny all and Stop
      </button>
    </div>
  );
}
