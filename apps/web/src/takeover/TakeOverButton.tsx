// "Take over" / "Hand back" in the chrome: while taken over, no AI input reaches the desktop
// (calls wait, then fail at their deadline saying the person has taken over).
import { useStore } from 'zustand';
import { takeOverStore } from './personActivity.js';

export function TakeOverButton() {
  const takenOver = useStore(takeOverStore, (s) => s.takenOver);
  return (
    <button
      type="button"
      className={`status-bar__button take-over${takenOver ? ' take-over--on' : ''}`}
      aria-pressed={takenOver}
      data-testid="take-over"
      title={
        takenOver
          ? 'You have the desktop: AI input waits. Hand it back to let the AI act again.'
          : 'Pause all AI input until you hand the desktop back.'
      }
      onClick={() => takeOverStore.getState().takenOverChanged(!takenOver)}
    >
      {takenOver ? 'Hand back' : 'Take over'}
    </button>
  );
}
