// What the page knows about the remote display besides the connection: the desktop's size,
// the scale it is drawn at and whether the keyboard goes to it. Changes only on resize and
// focus — never per frame — so components may render from it freely.
import { createStore, type StoreApi } from 'zustand/vanilla';

export interface DisplayData {
  /** Remote desktop size in desktop pixels (0 × 0 until the server sends `size`). */
  desktopWidth: number;
  desktopHeight: number;
  /** CSS pixels per desktop pixel. */
  scale: number;
  /** Keystrokes go to the remote desktop (its element has focus). */
  keyboardFocused: boolean;
}

export interface DisplayEvents {
  desktopResized: (width: number, height: number) => void;
  scaleChanged: (scale: number) => void;
  keyboardFocusChanged: (focused: boolean) => void;
}

export type DisplayState = DisplayData & DisplayEvents;

export function createDisplayStore(): StoreApi<DisplayState> {
  return createStore<DisplayState>()((set) => ({
    desktopWidth: 0,
    desktopHeight: 0,
    scale: 1,
    keyboardFocused: false,
    desktopResized: (desktopWidth, desktopHeight) => set({ desktopWidth, desktopHeight }),
    scaleChanged: (scale) => set({ scale }),
    keyboardFocusChanged: (keyboardFocused) => set({ keyboardFocused }),
  }));
}
