// Whether the viewer's files panel is open (its button, a drop of files on the desktop).
import { createStore } from 'zustand/vanilla';

export interface FilesPanelState {
  open: boolean;
  filesPanelToggled: (open?: boolean) => void;
}

export const filesPanelStore = createStore<FilesPanelState>()((set) => ({
  open: false,
  filesPanelToggled: (open) => set((s) => ({ open: open ?? !s.open })),
}));
