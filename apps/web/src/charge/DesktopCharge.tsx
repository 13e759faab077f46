// The desktop's people in the status bar: the desktop's name and who is in charge of its AI as a
// button, a "View only" badge for a view grant, and (wide windows) who is watching. The button
// opens a small panel that says what being in charge means, what this person may do, everyone
// watching, and the charge choices (Take charge, Hand over to …), each sending `charge`; every
// window changes when the bridge's next desktop_state arrives. Nothing shows before the first
// desktop_state. Escape or a click elsewhere closes the panel.
import type { ChargeMessage } from '@overlay-companion/protocol';
import type { Ref } from 'react';
import { useStore } from 'zustand';
import { desktopStateStore, type DesktopPeople } from '../store/desktopState.js';
import {
  accessText,
  chargeChoices,
  chargeExplanation,
  chargeLabel,
  watchingText,
} from './chargeText.js';
import './charge.css';
import { useDisclosure } from '../ui/useDisclosure.js';

/** Names listed in the status bar itself; the panel lists everyone. */
const BAR_WATCHERS = 3;

export interface DesktopChargeProps {
  /** Send the person's charge choice to the bridge. */
  onCharge: (message: ChargeMessage) => void;
}

export function DesktopCharge({ onCharge }: DesktopChargeProps) {
  const people = useStore(desktopStateStore, (s) => s.people);
  const { open, setOpen, area, button } = useDisclosure();

  if (people === null) return null;
  return (
    <DesktopChargeView
      people={people}
      open={open}
      onToggle={() => setOpen((value) => !value)}
      onCharge={(message) => {
        setOpen(false);
        onCharge(message);
      }}
      areaRef={area}
      buttonRef={button}
    />
  );
}

export interface DesktopChargeViewProps {
  people: DesktopPeople;
  open: boolean;
  onToggle: () => void;
  onCharge: (message: ChargeMessage) => void;
  areaRef?: Ref<HTMLDivElement>;
  buttonRef?: Ref<HTMLButtonElement>;
}

/** The view alone (rendered to markup in tests). */
export function DesktopChargeView({
  people,
  open,
  onToggle,
  onCharge,
  areaRef,
  buttonRef,
}: DesktopChargeViewProps) {
  const viewOnly = people.you.access === 'view';
  const explanation = chargeExplanation(people);
  const choices = chargeChoices(people);
  return (
    <div className="charge" ref={areaRef} data-testid="desktop-charge">
      <div className="charge__bar">
        {viewOnly && (
          <span
            className="charge__view-only"
            data-testid="view-only-badge"
            title="You were given view access: you may watch, but your mouse and keyboard never reach this desktop."
          >
            View only
          </span>
        )}
        <button
          ref={buttonRef}
          type="button"
          className={`status-bar__button charge__button${people.you.in_charge ? ' charge__button--you' : ''}`}
          aria-expanded={open}
          aria-controls="charge-panel"
          data-testid="charge-button"
          title={`${people.desktop.name}: ${explanation}`}
          onClick={onToggle}
        >
          <span className="charge__desktop">{people.desktop.name}</span>
          <span className="charge__who" data-testid="charge-label">
            {chargeLabel(people)}
          </span>
        </button>
        {/* Alone on the desktop there is nobody to name: the bar keeps its room for the rest. */}
        {people.watchers.length + people.more_watchers > 1 && (
          <span className="charge__watching status-bar__wide-only" data-testid="charge-watching">
            <span>{watchingText(people, BAR_WATCHERS)}</span>
          </span>
        )}
      </div>
      {open && (
        <div
          id="charge-panel"
          className="charge__panel"
          role="dialog"
          aria-label={`${people.desktop.name}: who is in charge`}
        >
          <h2 className="charge__title">{people.desktop.name}</h2>
          <p className="charge__explanation" data-testid="charge-explanation">
            {explanation}
          </p>
          <p className="charge__access">{accessText(people)}</p>
          <p className="charge__people">{watchingText(people)}</p>
          {choices.length > 0 && (
            <ul className="charge__choices">
              {choices.map((choice) => (
                <li key={choice.key}>
                  <button
                    type="button"
                    className="status-bar__button"
                    data-testid={`charge-${choice.message.action}`}
                    title={choice.title}
                    onClick={() => onCharge(choice.message)}
                  >
                    {choice.label}
                  </button>
                </li>
              ))}
            </ul>
          )}
        </div>
      )}
    </div>
  );
}
