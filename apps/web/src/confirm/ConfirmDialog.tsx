// The confirmation panel: a column in the page chrome beside the remote display — a sibling of
// the display, never inside it, so nothing the remote desktop does (and no click aimed at it)
// can land on Approve. It shows exactly what will happen (the crosshair/path is drawn on the
// overlay layer at the same time), a countdown to the automatic Deny, and Approve / Deny.
// Approve only takes a real (trusted) click made after the panel has been visible for a
// moment, so a click already on its way to the desktop cannot approve by accident. There is
// no keyboard shortcut for Approve; Escape denies, and only while the desktop does not have
// the keyboard (otherwise Escape belongs to the desktop).
import { useEffect } from 'react';
import { useStore } from 'zustand';
import { DISPLAY_AREA_ATTRIBUTE } from '../display/guacBrowser.js';
import { confirmationStore } from '../store/confirmations.js';
import { useNow } from '../ui/useNow.js';
import { describeConfirmation } from './describe.js';

/** Clicks on Approve this soon after a request comes to the front of the panel are ignored. */
export const APPROVE_ARM_MS = 600;

export interface ConfirmDialogProps {
  answer: (id: string, approved: boolean) => void;
}

function displayHasKeyboard(): boolean {
  const active = document.activeElement;
  return active instanceof Element && active.closest(`[${DISPLAY_AREA_ATTRIBUTE}]`) !== null;
}

export function ConfirmDialog({ answer }: ConfirmDialogProps) {
  const pending = useStore(confirmationStore, (s) => s.pending);
  const current = pending[0];
  const now = useNow(current !== undefined, 200);
  const currentId = current?.id;

  useEffect(() => {
    if (currentId === undefined) return undefined;
    const onKey = (event: KeyboardEvent) => {
      if (event.key !== 'Escape' || displayHasKeyboard()) return;
      event.preventDefault();
      answer(currentId, false);
    };
    document.addEventListener('keydown', onKey);
    return () => document.removeEventListener('keydown', onKey);
  }, [currentId, answer]);

  if (current === undefined) return null;
  const text = describeConfirmation(current.details);
  const total = Math.max(1, current.deadlineAt - current.askedAt);
  const left = Math.max(0, current.deadlineAt - now);
  const seconds = Math.ceil(left / 1000);
  // Armed from when this request came to the front: a double-click on Approve must not also
  // approve the request queued behind the first.
  const shownAt = current.frontAt;
  const armed = shownAt !== null && now - shownAt >= APPROVE_ARM_MS;
  const isMode = current.details.kind === 'mode';

  return (
    <aside
      className="confirm-panel"
      role="alertdialog"
      aria-labelledby="confirm-title"
      aria-describedby="confirm-facts"
      data-testid="confirm-panel"
    >
      <div className="confirm-panel__eyebrow">
        {isMode ? 'The AI asks for more access' : 'The AI asks to act on your desktop'}
      </div>
      <h2 id="confirm-title" className="confirm-panel__title">
        {text.title}
      </h2>
      <div id="confirm-facts" className="confirm-panel__facts">
        {text.facts.map((fact) => (
          <p key={fact}>{fact}</p>
        ))}
        {text.verbatim !== undefined && (
          <pre className="confirm-panel__verbatim" data-testid="confirm-verbatim">
            {text.verbatim}
          </pre>
        )}
      </div>
      <div className="confirm-panel__countdown" aria-live="off">
        <div className="confirm-panel__bar">
          <div className="confirm-panel__bar-fill" style={{ width: `${(left / total) * 100}%` }} />
        </div>
        <span data-testid="confirm-countdown">Denied automatically in {seconds} s</span>
      </div>
      <div className="confirm-panel__buttons">
        <button
          type="button"
          className="confirm-panel__deny"
          onClick={() => answer(current.id, false)}
        >
          Deny
        </button>
        <button
          type="button"
          className="confirm-panel__approve"
          aria-disabled={!armed}
          onClick={(event) => {
            // Only a person's click: not script-made, not in the first moments of the panel.
            if (!event.nativeEvent.isTrusted) return;
            if (shownAt === null || Date.now() - shownAt < APPROVE_ARM_MS) return;
            answer(current.id, true);
          }}
        >
          Approve
        </button>
      </div>
      {pending.length > 1 && (
        <div className="confirm-panel__more">
          {pending.length - 1} more request{pending.length === 2 ? '' : 's'} waiting
        </div>
      )}
    </aside>
  );
}
