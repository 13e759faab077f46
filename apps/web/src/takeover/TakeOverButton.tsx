// "Take over" / "Hand back" in the chrome: while taken over, no AI input reaches the desktop
// (calls wait unasked, then fail at their deadline saying the person has taken over; what was
// already allowed is offered at the hand back, heldActions.ts) and no interactive overlay
// catches the person's clicks; every window of the person follows (take_over). Not
// there for a person with a view grant: they never send input, so they have nothing to take over.
import { useStore } from 'zustand';
import { desktopStateStore, viewGrantOnly } from '../store/desktopState.js';
import { takeOverStore } from './personActivity.js';

export function TakeOverButton() {
  const takenOver = useStore(takeOverStore, (s) => s.takenOver);
  const viewGranted = useStore(desktopStateStore, viewGrantOnly);
  if (viewGranted) return null;
  return (
    <button
      type="button"
      className={`status-bar__button take-over${takenOver ? ' take-over--on' : ''}`}
      aria-pressed={takenOver}
      data-testid="take-over"
      title={
        takenOver
          ? 'You have the desktop (in every window): AI input waits unasked and your clicks all reach the desktop. Hand it back to let the AI act again; anything it was already allowed to do waits for you to choose Run.'
          : 'Pause all AI input, in every window, until you hand the desktop back.'
      }
      onClick={() => takeOverStore.getState().takenOverChanged(!takenOver)}
    >
      {takenOver ? 'Hand back' : 'Take over'}
    </button>
  );
}
