// The approvals waiting on any of the person's desktops, as one queue oldest first, each naming
// its desktop, answerable here: Deny, and Approve once the request has been at the front for
// APPROVE_ARM_MS. Only real (trusted) clicks and key presses answer (pressAnswers, the rule of
// every other approval panel). The answer goes to the bridge as fleet_answer, which checks the
// person is in charge and relays it to that desktop's control window like any other window's
// answer. Used on the fleet page and, for the other desktops, in the viewer. Each row shows the
// AI's intent and the desktop's pixels at the point (the square its control window read), as the
// desktop's own approval panel does.
import { useState } from 'react';
import { pressAnswers } from '../confirm/answerElsewhere.js';
import { APPROVAL_ANSWER_ATTRIBUTE, OTHER_DESKTOPS_ATTRIBUTE } from '../confirm/answerKeyboard.js';
import { APPROVE_ARM_MS } from '../confirm/ConfirmDialog.js';
import { intentText } from '../confirm/describe.js';
import { PreviewMagnifier } from '../confirm/Magnifier.js';
// The approval colours (--confirm-mark, --approve) the magnifier's outline uses.
import '../confirm/confirmPanel.css';
import { useNow } from '../ui/useNow.js';
import type { QueuedApproval } from './fleetOrder.js';
import './fleet.css';

export interface FleetApprovalsProps {
  queue: readonly QueuedApproval[];
  onAnswer: (desktopId: string, requestId: string, approved: boolean) => void;
  /** A heading level for where it is shown. */
  heading?: 'h2' | 'h3';
  className?: string;
  /** In a viewer: the menu chord puts the keyboard on the first Deny here (answerKeyboard.ts). */
  chordTarget?: boolean;
}

const key = (a: QueuedApproval): string => `${a.desktop.id}/${a.request_id ?? a.asked_at}`;

export function FleetApprovals({
  queue,
  onAnswer,
  heading: Heading = 'h2',
  className = '',
  chordTarget = false,
}: FleetApprovalsProps) {
  const now = useNow(queue.length > 0, 200);
  if (queue.length === 0) return null;
  return (
    <section
      className={`fleet-approvals ${className}`}
      aria-labelledby="fleet-approvals-heading"
      data-testid="fleet-approvals"
      {...(chordTarget ? { [OTHER_DESKTOPS_ATTRIBUTE]: '' } : {})}
    >
      <Heading id="fleet-approvals-heading" className="fleet-approvals__heading">
        {queue.length === 1
          ? 'An AI asks for your approval'
          : `${queue.length} approvals wait for you`}
      </Heading>
      <ol className="fleet-approvals__list">
        {queue.map((a) => (
          <ApprovalRow key={key(a)} approval={a} now={now} onAnswer={onAnswer} />
        ))}
      </ol>
    </section>
  );
}

function ApprovalRow({
  approval: a,
  now,
  onAnswer,
}: {
  approval: QueuedApproval;
  now: number;
  onAnswer: FleetApprovalsProps['onAnswer'];
}) {
  // Shown here since this row appeared (keyed by request): Approve arms APPROVE_ARM_MS later.
  const [shownSince] = useState(() => Date.now());
  const armed = now - shownSince >= APPROVE_ARM_MS;
  // The deadline is the bridge's clock; the bridge and the page share one in every setup we
  // ship (a skewed clock only misstates the countdown: the control window denies on its own).
  const left = Math.max(0, Math.ceil((a.deadline_at - now) / 1000));
  const requestId = a.request_id;
  const intent = intentText(a.intent);
  const press =
    (approved: boolean) =>
    (event: React.MouseEvent<HTMLButtonElement>): void => {
      if (requestId === undefined) return;
      if (!pressAnswers(event.nativeEvent, approved, shownSince, Date.now())) return;
      onAnswer(a.desktop.id, requestId, approved);
    };
  return (
    <li
      className="fleet-approvals__item"
      data-testid="fleet-approval"
      data-desktop-id={a.desktop.id}
    >
      <p className="fleet-approvals__what">
        <strong className="fleet-approvals__desktop">{a.desktop.name}</strong>: {a.title}{' '}
        <span className="fleet-approvals__left">— denied in {left} s</span>
      </p>
      {intent !== undefined && (
        <p className="fleet-approvals__intent" data-testid="fleet-approval-intent">
          The AI says why: <q>{intent}</q>
        </p>
      )}
      {a.preview !== undefined && <PreviewMagnifier preview={a.preview} label={a.title} />}
      {requestId === undefined ? (
        <p className="fleet-approvals__muted">Answer this one in the desktop’s own viewer.</p>
      ) : (
        <div className="fleet-approvals__buttons">
          <button
            type="button"
            className="button"
            data-testid="fleet-approval-deny"
            onClick={press(false)}
            {...{ [APPROVAL_ANSWER_ATTRIBUTE]: '' }}
          >
            Deny<span className="visually-hidden"> on {a.desktop.name}</span>
          </button>
          <button
            type="button"
            className="button button--primary"
            data-testid="fleet-approval-approve"
            aria-disabled={!armed}
            onClick={press(true)}
            {...{ [APPROVAL_ANSWER_ATTRIBUTE]: '' }}
          >
            Approve<span className="visually-hidden"> on {a.desktop.name}</span>
          </button>
        </div>
      )}
    </li>
  );
}
