// The recording indicator in the status bar of every window of a desktop: "● Recording" (words,
// not only a red dot; "● Rec" where the one-line bar is tight, so the desktop's name keeps its
// room) while the bridge records this desktop, and a notice while recording stopped on its own
// ("Recording stopped: disk full — the desktop keeps working"), so the person knows what is and
// is not being kept. Reads desktop_state's `recording`; an older bridge sends none, and then
// nothing shows.
import type { DesktopRecordingState } from '@overlay-companion/protocol';
import { useStore } from 'zustand';
import { clockTime } from '../pages/common/time.js';
import { desktopStateStore } from '../store/desktopState.js';
import { BarWords } from '../ui/BarWords.js';
import './indicator.css';

export function RecordingIndicator() {
  const status = useStore(desktopStateStore, (s) => s.people?.recording ?? null);
  return <RecordingIndicatorView status={status} />;
}

/** The view alone (rendered to markup in tests). */
export function RecordingIndicatorView({ status }: { status: DesktopRecordingState | null }) {
  if (status === null) return null;
  if (status.stopped_reason !== null) {
    return (
      <span
        className="recording-indicator recording-indicator--stopped"
        role="alert"
        data-testid="recording-stopped"
      >
        Recording stopped: {status.stopped_reason} — the desktop keeps working
      </span>
    );
  }
  if (!status.on) return null;
  const since = status.since === null ? '' : ` since ${clockTime(status.since)}`;
  return (
    <span
      className="recording-indicator"
      role="status"
      data-testid="recording-indicator"
      title={`This desktop is being recorded${since}: the screen, the AI's overlays and actions.${status.may_change ? ' Your policy lets you turn it off.' : ''}`}
    >
      <span className="recording-indicator__dot" aria-hidden="true" />
      <BarWords long="Recording" short="Rec" narrow="laptop" />
    </span>
  );
}
