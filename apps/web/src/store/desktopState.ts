// Who this window's desktop belongs to right now, as the bridge says in desktop_state: its name,
// the one person in charge of its AI, who is watching, and what this window's person may do
// (their access, whether they may take the charge, whom they may hand it to). Null until the
// first desktop_state (an older bridge never sends one: the chrome then shows nothing of it).
// Changes on bridge messages only, so components render from it.
import type { DesktopStateMessage } from '@overlay-companion/protocol';
import { createStore, type StoreApi } from 'zustand/vanilla';

/** desktop_state without its wire `type`. */
export type DesktopPeople = Omit<DesktopStateMessage, 'type'>;

export interface DesktopStateData {
  people: DesktopPeople | null;
}

export interface DesktopStateEvents {
  desktopStateReceived: (message: DesktopStateMessage) => void;
}

export type DesktopState = DesktopStateData & DesktopStateEvents;

export function createDesktopStateStore(): StoreApi<DesktopState> {
  return createStore<DesktopState>()((set) => ({
    people: null,
    desktopStateReceived: ({ type: _type, ...people }) => set({ people }),
  }));
}

/** A `view` grant: this window watches and never sends the person's input to the desktop. */
export function viewGrantOnly(state: DesktopStateData): boolean {
  return state.people?.you.access === 'view';
}

export const desktopStateStore = createDesktopStateStore();
