// "You have the desktop": shown over the top of the desktop area for as long as the person has
// taken over, in every window of theirs (take_over is relayed to all), with Hand back. Over the
// display, never in the page's flow, so it appearing never moves or rescales the display; only
// its button catches the pointer.
import { useStore } from 'zustand';
import { takeOverStore } from './personActivity.js';
import './takeOver.css';

export function TakeOverBanner() {
  const takenOver = useStore(takeOverStore, (s) => s.takenOver);
  return (
    <div className="take-over-banner-slot" role="status">
      {takenOver ? (
        <div className="take-over-banner" data-testid="take-over-banner">
          <strong>You have the desktop.</strong>{' '}
          <span>The AI’s clicks and typing wait until you hand it back.</span>
          <button
            type="button"
            className="take-over-banner__hand-back"
            onClick={() => takeOverStore.getState().takenOverChanged(false)}
          >
            Hand back
          </button>
        </div>
      ) : null}
    </div>
  );
}
