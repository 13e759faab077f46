// What the AI is doing on the desktop right now, for the person to see: every input action the
// control window runs is announced here with exactly what it does (the same ConfirmDetails the
// approval panel shows), and the pointer layer draws it. `acting` counts input calls in flight
// (the chrome's stronger indicator); it changes twice per call, never per animation frame.
import { createStore, type StoreApi } from 'zustand/vanilla';
import type { ConfirmDetails } from '../store/confirmations.js';

export interface ActivityState {
  acting: number;
  actionStarted: () => void;
  actionEnded: () => void;
}

export function createActivityStore(): StoreApi<ActivityState> {
  return createStore<ActivityState>()((set) => ({
    acting: 0,
    actionStarted: () => set((s) => ({ acting: s.acting + 1 })),
    actionEnded: () => set((s) => ({ acting: Math.max(0, s.acting - 1) })),
  }));
}

export const activityStore = createActivityStore();

type ActionListener = (details: ConfirmDetails) => void;
const listeners = new Set<ActionListener>();

/** The pointer layer listens here; returns the undo. */
export function onAiAction(listener: ActionListener): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

/** The control window is about to run an AI input action: show it, count it until `done`. */
export function aiActionStarted(details: ConfirmDetails): () => void {
  activityStore.getState().actionStarted();
  for (const listener of listeners) listener(details);
  let ended = false;
  return () => {
    if (ended) return;
    ended = true;
    activityStore.getState().actionEnded();
  };
}
