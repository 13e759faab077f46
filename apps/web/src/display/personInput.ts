// Whether the person's own input — mouse, touch, keyboard, the on-screen keyboard, the menu's
// keys and clipboard — may leave this window for the desktop: not while they chose View only in
// the menu, and never on a desktop where their grant is `view` (the bridge drops such input too;
// this is the page's half). Read at each event, never cached: either can change at any time.
import { useStore } from 'zustand';
import { desktopStateStore, viewGrantOnly, type DesktopStateData } from '../store/desktopState.js';
import { viewerPrefsStore, type ViewerPrefsState } from '../store/viewerPrefs.js';

export function personInputBlocked(
  prefs: Pick<ViewerPrefsState, 'viewOnly'> = viewerPrefsStore.getState(),
  desktop: DesktopStateData = desktopStateStore.getState(),
): boolean {
  return prefs.viewOnly || viewGrantOnly(desktop);
}

/** The same, for rendering (disabled buttons, the menu's View only box). */
export function usePersonInputBlocked(): boolean {
  const chosen = useStore(viewerPrefsStore, (s) => s.viewOnly);
  const granted = useStore(desktopStateStore, viewGrantOnly);
  return chosen || granted;
}
