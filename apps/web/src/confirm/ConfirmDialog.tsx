// The approval panel: floats over the desktop area — a sibling of the display, never inside it,
// so nothing the remote desktop does (and no click aimed at it) can land on Approve — on the
// side away from the point it is about. It shows the AI's own reason when it gave one (its
// `intent`, as plain text), then exactly what will happen (the crosshair/path on the overlay
// layer, and a magnified crop of the desktop's own pixels under the point), a countdown to the automatic Deny, the whole queue, and the answers: Approve, Deny, "Allow for
// N minutes" and "Allow for this AI session" (a standing permission for this tool and this AI
// client, kept by the bridge), and "Deny and Stop". Every kind of approval only takes a real (trusted) click or
// key press on the button made after the request has been at the front for a moment, so a
// click already on its way to the desktop cannot approve by accident. From the keyboard
// (answerKeyboard.ts): the menu chord puts the keyboard on Deny, Tab reaches Approve, Enter
// answers; after any answer of the person's the keyboard goes back where it was and the menu
// closes. Escape denies, and never while the desktop has the keyboard (Escape is the desktop's).
import { useEffect, useRef, useState } from 'react';
import { useStore } from 'zustand';
import { STANDING_PERMISSION_MINUTES } from '@overlay-companion/protocol';
import { APPROVAL_KEYS_HELP, HOTKEY_HELP } from '../display/hotkeys.js';
import { confirmationStore, type ConfirmDetails } from '../store/pendingConfirmations.js';
import { viewerPrefsStore } from '../store/viewerPrefs.js';
import { viewportStore } from '../store/viewport.js';
import { useNow } from '../ui/useNow.js';
import {
  APPROVAL_ANSWER_ATTRIBUTE,
  APPROVAL_PANEL_ATTRIBUTE,
  approvalFocused,
  escapeAction,
  keyboardPlace,
  personAnswered,
  returnKeyboard,
} from './answerKeyboard.js';
import { ConfirmIntent } from './ConfirmIntent.js';
import { describeConfirmation, pointOf } from './describe.js';
import { Magnifier } from './Magnifier.js';
import { SheetCollapse } from './SheetCollapse.js';

/** Clicks on Approve this soon after a request comes to the front of the panel are ignored. */
export const APPROVE_ARM_MS = 600;

export interface ConfirmDialogProps {
  answer: (id: string, approved: boolean) => void;
  /** "Allow for a while": false when it could not reach the bridge (then nothing is approved). */
  grant: (callId: string, minutes: number | null) => boolean;
  stop: () => void;
}

/** 'left' when the point lies in the right half of the shown desktop: keep the panel off it. */
function sideFor(details: ConfirmDetails): 'left' | 'right' {
  const point = pointOf(details);
  const { viewport } = viewportStore.getState();
  if (point === undefined || viewport.vw <= 0) return 'right';
  return point.x - viewport.vx > viewport.vw / 2 ? 'left' : 'right';
}

export function ConfirmDialog({ answer, grant, stop }: ConfirmDialogProps) {
  const pending = useStore(confirmationStore, (s) => s.pending);
  const current = pending[0];
  const now = useNow(current !== undefined, 200);
  const currentId = current?.id;
  const [minutes, setMinutes] = useState<number>(STANDING_PERMISSION_MINUTES[0]);
  // The panel had the keyboard and it did not move elsewhere: when the panel goes (timeout,
  // withdrawn, Stop elsewhere) focus would drop to <body>; give it back instead.
  const hadKeyboard = useRef(false);

  useEffect(() => {
    if (currentId === undefined) return undefined;
    const onKey = (event: KeyboardEvent) => {
      // defaultPrevented: the menu already took this Escape (the same rule, escapeAction).
      if (event.key !== 'Escape' || event.defaultPrevented) return;
      const { menuOpen } = viewerPrefsStore.getState();
      if (escapeAction(keyboardPlace(event.target), { menuOpen, approvalWaiting: true }) !== 'deny')
        return;
      event.preventDefault();
      answer(currentId, false);
      personAnswered(document);
    };
    document.addEventListener('keydown', onKey);
    return () => document.removeEventListener('keydown', onKey);
  }, [currentId, answer]);

  useEffect(() => {
    if (!hadKeyboard.current) return;
    const active = document.activeElement;
    if (active !== null && active !== document.body) return;
    hadKeyboard.current = false;
    returnKeyboard(document);
  }, [currentId]);

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
  const point = pointOf(current.details);
  const grantable = current.grantable;
  const clientName = grantable?.client.name;

  /** Runs `then` only for a person's click or key on an armed panel. */
  const approving =
    (then: () => void) =>
    (event: React.MouseEvent<HTMLButtonElement>): void => {
      if (!event.nativeEvent.isTrusted) return;
      if (shownAt === null || Date.now() - shownAt < APPROVE_ARM_MS) return;
      then();
    };

  /** The person's answer: then the keyboard goes back and the menu closes (answerKeyboard.ts). */
  const answered = (approved: boolean) => {
    answer(current.id, approved);
    personAnswered(document);
  };

  /** Approve, and give a standing permission for this tool and client (null: this AI session). */
  const allowFor = (to: NonNullable<typeof grantable>, forMinutes: number | null) =>
    approving(() => {
      if (grant(to.callId, forMinutes)) answered(true);
    });

  return (
    <aside
      className="confirm-panel"
      role="alertdialog"
      aria-labelledby="confirm-title"
      aria-describedby="confirm-intent confirm-facts"
      data-testid="confirm-panel"
      data-side={sideFor(current.details)}
      {...{ [APPROVAL_PANEL_ATTRIBUTE]: '' }}
      onFocus={(event) => {
        hadKeyboard.current = true;
        approvalFocused(event.relatedTarget);
      }}
      onBlur={(event) => {
        // Null: the window lost focus or the button went away; the panel still "has" it.
        if (event.relatedTarget !== null && keyboardPlace(event.relatedTarget) !== 'approval')
          hadKeyboard.current = false;
      }}
    >
      <SheetCollapse requestId={current.id} />
      <div className="confirm-panel__eyebrow">
        {isMode
          ? 'The AI asks for more access'
          : `${clientName ?? 'The AI'} asks to act on your desktop`}
      </div>
      <h2 id="confirm-title" className="confirm-panel__title">
        {text.title}
      </h2>
      <ConfirmIntent intent={current.intent} />
      <div id="confirm-facts" className="confirm-panel__facts">
        {text.facts.map((fact) => (
          <p key={fact}>{fact}</p>
        ))}
        {text.verbatim !== undefined && (
          <pre className="confirm-panel__verbatim" data-testid="confirm-verbatim">
            {text.verbatim}
          </pre>
        )}
        {grantable !== undefined && (
          <p className="confirm-panel__who">
            {grantable.client.name} · token “{grantable.client.token}”
          </p>
        )}
      </div>
      {point !== undefined && <Magnifier x={point.x} y={point.y} label={text.title} />}
      <div className="confirm-panel__countdown" aria-live="off">
        <div className="confirm-panel__bar">
          <div className="confirm-panel__bar-fill" style={{ width: `${(left / total) * 100}%` }} />
        </div>
        <span data-testid="confirm-countdown">Denied automatically in {seconds} s</span>
      </div>
      {pending.length > 1 && (
        <section className="confirm-panel__queue" aria-label="Waiting requests">
          <h3>
            {pending.length - 1} more request{pending.length === 2 ? '' : 's'} waiting
          </h3>
          <ol data-testid="confirm-queue">
            {pending.slice(1).map((p) => (
              <li key={p.id}>
                {describeConfirmation(p.details).title}
                {p.grantable ? ` — ${p.grantable.client.name}` : ''}
              </li>
            ))}
          </ol>
        </section>
      )}
      <div className="confirm-panel__actions">
        <div className="confirm-panel__buttons">
          <button
            type="button"
            className="confirm-panel__deny"
            aria-keyshortcuts={HOTKEY_HELP.menu.replaceAll('Ctrl', 'Control')}
            onClick={() => answered(false)}
            {...{ [APPROVAL_ANSWER_ATTRIBUTE]: '' }}
          >
            Deny
          </button>
          <button
            type="button"
            className="confirm-panel__approve"
            aria-disabled={!armed}
            onClick={approving(() => answered(true))}
            {...{ [APPROVAL_ANSWER_ATTRIBUTE]: '' }}
          >
            Approve
          </button>
        </div>
        <p className="confirm-panel__keys" data-testid="confirm-keys">
          {APPROVAL_KEYS_HELP}
        </p>
        {grantable !== undefined && (
          <div className="confirm-panel__standing">
            <div className="confirm-panel__standing-row">
              <button
                type="button"
                className="confirm-panel__allow"
                aria-disabled={!armed}
                onClick={allowFor(grantable, minutes)}
              >
                Allow {grantable.tool} for
              </button>
              <select
                aria-label="How many minutes"
                value={minutes}
                onChange={(event) => setMinutes(Number(event.target.value))}
              >
                {STANDING_PERMISSION_MINUTES.map((m) => (
                  <option key={m} value={m}>
                    {m} min
                  </option>
                ))}
              </select>
            </div>
            <button
              type="button"
              className="confirm-panel__allow"
              aria-disabled={!armed}
              onClick={allowFor(grantable, null)}
            >
              Allow {grantable.tool} for this AI session
            </button>
          </div>
        )}
        <button
          type="button"
          className="confirm-panel__deny-stop"
          onClick={() => {
            stop();
            personAnswered(document);
          }}
        >
          Deny and Stop
        </button>
      </div>
    </aside>
  );
}
