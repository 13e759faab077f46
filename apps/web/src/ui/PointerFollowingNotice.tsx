// The line that says an AI follows the person's pointer (pointerFollowing.ts), with the way to
// stop it: the "Let the AI follow my pointer and clicks" switch in Settings, opened in a new tab
// so this window — the person's control plane — stays open. Shown in the key-reading banner's
// slot (KeyReadingBanner.tsx), so every window shows it and a monitor window floats it with the
// bar; quieter than the key-reading banner, since where a pointer goes tells less than keys.
import { StopInSettings } from './StopInSettings.js';
import './pointerFollowing.css';

export function PointerFollowingNotice() {
  return (
    <div className="pointer-banner" data-testid="pointer-following-banner">
      <strong>An AI follows your pointer and clicks.</strong>{' '}
      <StopInSettings permission="read_pointer_events" className="pointer-banner__how" />
    </div>
  );
}
