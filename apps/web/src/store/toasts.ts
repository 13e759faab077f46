// Short notices about outcomes the person would otherwise miss: an approval that timed out, a
// denial, Stop, a standing permission that ended. Shown by ui/Toasts.tsx in a live region and
// dropped after TOAST_MS (or when the person dismisses them).
import { createStore, type StoreApi } from 'zustand/vanilla';

export const TOAST_MS = 8_000;
/** Older toasts go first beyond this many. */
const MAX_TOASTS = 4;

export type ToastTone = 'info' | 'warn' | 'stop';

export interface Toast {
  id: number;
  tone: ToastTone;
  text: string;
}

export interface ToastState {
  toasts: readonly Toast[];
  toastShown: (tone: ToastTone, text: string) => void;
  toastDismissed: (id: number) => void;
}

export function createToastStore(
  schedule: (fn: () => void, ms: number) => void = (fn, ms) => void setTimeout(fn, ms),
): StoreApi<ToastState> {
  let counter = 0;
  return createStore<ToastState>()((set, get) => ({
    toasts: [],
    toastShown: (tone, text) => {
      counter += 1;
      const id = counter;
      set((s) => ({ toasts: [...s.toasts, { id, tone, text }].slice(-MAX_TOASTS) }));
      schedule(() => get().toastDismissed(id), TOAST_MS);
    },
    toastDismissed: (id) => set((s) => ({ toasts: s.toasts.filter((t) => t.id !== id) })),
  }));
}

export const toastStore = createToastStore();
