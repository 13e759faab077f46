// The person's choices about this window's remote-desktop client: whether the client menu is
// open, how the desktop is scaled, and view-only. Changes only when the person acts, so
// components may render from it. The scaling choice is remembered per browser. (No window
// resizes the desktop: its size comes from the person's layout or the operator.)
import { createStore, type StoreApi } from 'zustand/vanilla';

/** fit: whole desktop in the window; actual: 1:1 with scrolling. */
export type ScalingMode = 'fit' | 'actual';

const STORAGE_KEY = 'overlay-companion.scaling';

export interface ViewerPrefsState {
  menuOpen: boolean;
  /** The action log panel (activity/ActionLog.tsx) is open. */
  logOpen: boolean;
  scaling: ScalingMode;
  /** The person's mouse, keyboard and touch do not reach the desktop. */
  viewOnly: boolean;
  menuToggled: (open?: boolean) => void;
  logToggled: (open?: boolean) => void;
  scalingChosen: (mode: ScalingMode) => void;
  viewOnlyToggled: (on: boolean) => void;
}

function remembered(storage: Pick<Storage, 'getItem'> | undefined): ScalingMode {
  try {
    return storage?.getItem(STORAGE_KEY) === 'actual' ? 'actual' : 'fit';
  } catch {
    return 'fit';
  }
}

export function createViewerPrefsStore(
  storage: Pick<Storage, 'getItem' | 'setItem'> | undefined = globalThis.localStorage,
): StoreApi<ViewerPrefsState> {
  return createStore<ViewerPrefsState>()((set, get) => ({
    menuOpen: false,
    logOpen: false,
    scaling: remembered(storage),
    viewOnly: false,
    menuToggled: (open) => set({ menuOpen: open ?? !get().menuOpen }),
    logToggled: (open) => set({ logOpen: open ?? !get().logOpen }),
    scalingChosen: (scaling) => {
      try {
        storage?.setItem(STORAGE_KEY, scaling);
      } catch {
        // Private mode or a full quota: the choice holds for this page only.
      }
      set({ scaling });
    },
    viewOnlyToggled: (viewOnly) => set({ viewOnly }),
  }));
}

export const viewerPrefsStore = createViewerPrefsStore();
