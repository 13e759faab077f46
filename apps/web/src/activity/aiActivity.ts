// What the AI is doing on the desktop right now, for the person to see: every input action the
// control window runs is announced here with exactly what it does (the same ConfirmDetails the
// approval panel shows), and the pointer layer draws it; the person's other windows are told
// (ai_action) and draw it too. `acting` counts input calls in flight in this window (the chrome's
// stronger indicator); it changes twice per call, never per animation frame.
import { createStore, type StoreApi } from 'zustand/vanilla';
import type { ConfirmDetails } from '../store/pendingConfirmations.js';

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
const runListeners = new Set<ActionListener>();

/** The pointer layer listens here (actions run here and those another window ran); the undo. */
export function onAiAction(listener: ActionListener): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

/** Actions this window runs, to tell the person's other windows (ai_action); the undo. */
export function onAiActionRun(listener: ActionListener): () => void {
  runListeners.add(listener);
  return () => runListeners.delete(listener);
}

/** Draws an action: one this window runs, or one another window ran (no "acting" count). */
export function aiActionSeen(details: ConfirmDetails): void {
  for (const listener of listeners) listener(details);
}

/**
 * User Timing names for what showing one action costs the page: the synchronous work (pointer,
 * ripple, text, the acting count), and that plus the indicator's React render (flushed in a
 * microtask), up to the next task. `npm run bench` reads them; they cost microseconds.
 */
export const AI_ACTION_MEASURE = 'oc-ai-action';
export const AI_ACTION_RENDER_MEASURE = 'oc-ai-action-render';
/** Most entries of each kept in the page's performance timeline. */
const MAX_MEASURES = 1_000;
const afterRender = new MessageChannel();

function measured(name: string, start: number): void {
  if (performance.getEntriesByName(name).length >= MAX_MEASURES) performance.clearMeasures(name);
  performance.measure(name, { start });
}

/** The control window is about to run an AI input action: show it, count it until `done`. */
export function aiActionStarted(details: ConfirmDetails): () => void {
  const start = performance.now();
  activityStore.getState().actionStarted();
  aiActionSeen(details);
  measured(AI_ACTION_MEASURE, start);
  for (const listener of runListeners) listener(details);
  // A message task runs after the microtasks in which React renders the store change.
  afterRender.port1.onmessage = () => measured(AI_ACTION_RENDER_MEASURE, start);
  afterRender.port2.postMessage(null);
  let ended = false;
  return () => {
    if (ended) return;
    ended = true;
    activityStore.getState().actionEnded();
  };
}
