// Says plainly, at the top of the viewer, when an AI is reading the person's key presses, with
// the way to stop it (the "Let the AI read my key presses" switch in Settings, opened in a new
// tab so this window — the person's control plane — stays open). Reads the control store only.
import { PAGES, PERMISSION_LABELS } from '@overlay-companion/protocol';
import { useStore } from 'zustand';
import { controlStore } from '../store/control.js';
import { readsKeyPresses } from './keyReading.js';

/** The banner's content; a live region always present, so its appearance is announced. */
export function KeyReadingNotice({ reading }: { reading: boolean }) {
  return (
    <div className="key-banner-slot" role="status">
      {reading ? (
        <div className="key-banner" data-testid="key-reading-banner">
          <strong>An AI is reading your key presses.</strong>{' '}
          <span className="key-banner__how">
            To stop it, turn off “{PERMISSION_LABELS.read_key_events}” in{' '}
            <a href={PAGES.settings} target="_blank" rel="noopener noreferrer">
              Settings
              <span className="visually-hidden"> (opens in a new tab)</span>
            </a>
            .
          </span>
        </div>
      ) : null}
    </div>
  );
}

export function KeyReadingBanner() {
  const reading = useStore(controlStore, (state) => readsKeyPresses(state.eventInterest));
  return <KeyReadingNotice reading={reading} />;
}
