// Whether the viewer's files panel is open (its button, a drop of files on the desktop), and
// whether the panel should take the keyboard when it shows: opened from a button, yes — it is far
// from the button in the page, past the desktop area, which Tab never leaves — from a drop, no
// (the person's keyboard stays where it was).
import { createStore } from 'zustand/vanilla';

export interface FilesPanelState {
  open: boolean;
  /** The panel focuses its heading when it next shows (then clears this). */
  focusIn: boolean;
  filesPanelToggled: (open?: boolean, options?: { focusIn?: boolean }) => void;
  focusTaken: () => void;
}

export const filesPanelStore = createStore<FilesPanelState>()((set) => ({
  open: false,
  focusIn: false,
  filesPanelToggled: (open, options) =>
    set((s) => ({ open: open ?? !s.open, focusIn: options?.focusIn ?? false })),
  focusTaken: () => set({ focusIn: false }),
}));
