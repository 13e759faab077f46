// Says plainly, at the top of every viewer window, what of the person's own input an AI is
// reading: their key presses (a banner), and their pointer and clicks (a quieter line,
// PointerFollowingNotice.tsx), each with the way to stop it (its switch in Settings, opened in a
// new tab so this window — the person's control plane — stays open). Reads the control store only.
import { useStore } from 'zustand';
import { controlStore } from '../store/control.js';
import { readsKeyPresses } from './keyReading.js';
import { PointerFollowingNotice } from './PointerFollowingNotice.js';
import { followsPointer } from './pointerFollowing.js';
import { StopInSettings } from './StopInSettings.js';

/** The banners' slot; a live region always present, so each one's appearance is announced. */
export function KeyReadingNotice({
  reading,
  following = false,
}: {
  reading: boolean;
  following?: boolean;
}) {
  return (
    <div className="key-banner-slot" role="status">
      {reading ? (
        <div className="key-banner" data-testid="key-reading-banner">
          <strong>An AI is reading your key presses.</strong>{' '}
          <StopInSettings permission="read_key_events" className="key-banner__how" />
        </div>
      ) : null}
      {following ? <PointerFollowingNotice /> : null}
    </div>
  );
}

export function KeyReadingBanner() {
  const reading = useStore(controlStore, (state) => readsKeyPresses(state.eventInterest));
  const following = useStore(controlStore, (state) =>
    followsPointer(state.eventInterest, state.permissions),
  );
  return <KeyReadingNotice reading={reading} following={following} />;
}
