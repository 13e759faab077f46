// "1 approved action waiting: Run / Discard": after a hand back, the AI actions that were allowed
// before or during the take-over (takeover/heldActions.ts), with what each would do and where —
// in the approval panel's words and with its magnifier of the desktop's own pixels — and a
// countdown to the automatic Discard. Hidden while the person has the desktop. Like Approve,
// Run takes only a real click made after the panel has been shown for a moment.
import { useStore } from 'zustand';
import { APPROVE_ARM_MS } from '../confirm/ConfirmDialog.js';
import { describeConfirmation, pointOf } from '../confirm/describe.js';
import { Magnifier } from '../confirm/Magnifier.js';
import {
  APPROVAL_ANSWER_ATTRIBUTE,
  APPROVAL_PANEL_ATTRIBUTE,
  approvalFocused,
  personAnswered,
} from '../confirm/answerKeyboard.js';
import { heldActionStore, type HeldAction } from '../store/heldActions.js';
import type { ConfirmDetails } from '../store/pendingConfirmations.js';
import { viewportStore } from '../store/viewport.js';
import { useNow } from '../ui/useNow.js';
import { takeOverStore } from './personActivity.js';
import './takeOver.css';

export interface HeldActionsPanelProps {
  answer: (id: string, run: boolean) => void;
}

/** The facts without the approval panel's pointers to marks this panel does not draw. */
function facts(details: ConfirmDetails): string[] {
  return describeConfirmation(details).facts.map((f) => f.replace(/ \((marked[^)]*)\)/, ''));
}

export function HeldActionsPanel({ answer }: HeldActionsPanelProps) {
  const held = useStore(heldActionStore, (s) => s.held);
  const takenOver = useStore(takeOverStore, (s) => s.takenOver);
  const shown = !takenOver && held.length > 0;
  const now = useNow(shown, 200);
  if (!shown) return null;
  const count = held.length;
  const first = held[0];
  const point = first === undefined ? undefined : pointOf(first.details);
  const { viewport } = viewportStore.getState();
  const side =
    point !== undefined && viewport.vw > 0 && point.x - viewport.vx > viewport.vw / 2
      ? 'left'
      : 'right';
  return (
    <aside
      className="confirm-panel held-actions"
      role="alertdialog"
      aria-labelledby="held-actions-title"
      data-testid="held-actions"
      data-side={side}
      // The keyboard path of the approval panel (answerKeyboard.ts): the menu chord puts the
      // keyboard on the first Discard, Tab reaches Run, Enter answers, and the keyboard goes back.
      {...{ [APPROVAL_PANEL_ATTRIBUTE]: '' }}
      onFocus={(event) => approvalFocused(event.relatedTarget)}
    >
      <div className="confirm-panel__eyebrow">You handed the desktop back</div>
      <h2 id="held-actions-title" className="confirm-panel__title">
        {count} approved action{count === 1 ? '' : 's'} waiting
      </h2>
      <p className="held-actions__why">
        {count === 1 ? 'It was' : 'They were'} allowed before or while you had the desktop, and
        {count === 1 ? ' has' : ' have'} not run. The desktop may have changed since: run{' '}
        {count === 1 ? 'it' : 'each'} only if it still makes sense.
      </p>
      <ol className="held-actions__list">
        {held.map((action) => (
          <HeldActionItem key={action.id} action={action} now={now} answer={answer} />
        ))}
      </ol>
    </aside>
  );
}

function HeldActionItem({
  action,
  now,
  answer,
}: {
  action: HeldAction;
  now: number;
  answer: (id: string, run: boolean) => void;
}) {
  const text = describeConfirmation(action.details);
  const point = pointOf(action.details);
  const seconds = Math.max(0, Math.ceil((action.deadlineAt - now) / 1000));
  // Held at the hand back, so shown from then: a double-click on Hand back cannot also Run.
  const armed = now - action.heldAt >= APPROVE_ARM_MS;
  return (
    <li className="held-actions__item" data-testid="held-action">
      <h3 className="held-actions__what">
        {text.title}
        {action.clientName === undefined ? '' : ` — ${action.clientName}`}
      </h3>
      <div className="confirm-panel__facts">
        {facts(action.details).map((fact) => (
          <p key={fact}>{fact}</p>
        ))}
        {text.verbatim !== undefined && (
          <pre className="confirm-panel__verbatim">{text.verbatim}</pre>
        )}
      </div>
      {point !== undefined && <Magnifier x={point.x} y={point.y} label={text.title} />}
      <p className="held-actions__countdown">Discarded automatically in {seconds} s</p>
      <div className="confirm-panel__buttons">
        <button
          type="button"
          className="confirm-panel__deny"
          onClick={() => {
            answer(action.id, false);
            personAnswered(document);
          }}
          {...{ [APPROVAL_ANSWER_ATTRIBUTE]: '' }}
        >
          Discard
        </button>
        <button
          type="button"
          className="confirm-panel__approve"
          aria-disabled={!armed}
          onClick={(event) => {
            if (!event.nativeEvent.isTrusted || Date.now() - action.heldAt < APPROVE_ARM_MS) return;
            answer(action.id, true);
            personAnswered(document);
          }}
          {...{ [APPROVAL_ANSWER_ATTRIBUTE]: '' }}
        >
          Run
        </button>
      </div>
    </li>
  );
}
