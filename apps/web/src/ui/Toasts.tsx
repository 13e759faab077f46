// The toast stack (store/toasts.ts): bottom-left over the desktop area, announced politely to
// screen readers, each with a Dismiss button reachable by keyboard.
import { useStore } from 'zustand';
import { toastStore } from '../store/toasts.js';

export function Toasts() {
  const toasts = useStore(toastStore, (s) => s.toasts);
  return (
    <div className="toasts" role="status" aria-live="polite" data-testid="toasts">
      {toasts.map((toast) => (
        <div key={toast.id} className={`toast toast--${toast.tone}`} data-testid="toast">
          <span>{toast.text}</span>
          <button
            type="button"
            aria-label="Dismiss"
            onClick={() => toastStore.getState().toastDismissed(toast.id)}
          >
            ×
          </button>
        </div>
      ))}
    </div>
  );
}
