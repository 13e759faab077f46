// "Show me": a link from an audit row or an action-log entry to the recording of that desktop at
// that moment (/recordings/<id>?t=<ms>), shown only when a recording covers it.
import type { ReactNode } from 'react';
import { followInApp } from '../pages/console/navigation.js';
import { useRecordingList } from './recordingList.js';
import { recordingFor, showMeHref, type Moment } from './showMe.js';

export interface ShowMeLinkProps extends Moment {
  /** From the viewer: open the player in another tab, so the desktop stays connected here. */
  newTab?: boolean;
  /** Shown instead when no recording covers the moment (a table cell's "—"). */
  otherwise?: ReactNode;
}

export function ShowMeLink({ newTab = false, otherwise = null, ...moment }: ShowMeLinkProps) {
  const recordings = useRecordingList();
  const recording = recordingFor(recordings, moment);
  if (recording === null) return otherwise;
  const href = showMeHref(recording.id, moment.at);
  return newTab ? (
    <a
      className="show-me"
      href={href}
      target="_blank"
      rel="noopener"
      data-testid="show-me"
      aria-label="Show me this moment in the recording (opens in a new tab)"
    >
      Show me
    </a>
  ) : (
    <a
      className="show-me"
      href={href}
      data-testid="show-me"
      aria-label="Show me this moment in the recording"
      onClick={(event) => followInApp(event, href)}
    >
      Show me
    </a>
  );
}
