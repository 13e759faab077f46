// The toast stack (store/toasts.ts): bottom centre over the desktop area, announced politely to
// screen readers, each with a Dismiss button reachable by keyboard. The stack's band at the
// bottom is its own while it shows: its height (with the gaps) is published on the desktop area
// as --toasts-room, and the panels that must never be covered — the viewer menu, the approval
// panel with its Deny and Stop — end above it (menu.css, confirmPanel.css), so on a phone, where
// a panel is as wide and as tall as the area, a "Denied: …" toast does not hide its last rows.
import { useLayoutEffect, useRef, type RefObject } from 'react';
import { useStore } from 'zustand';
import { toastStore } from '../store/toasts.js';

/** Between the stack's top and a panel's bottom, besides the stack's own 12 px from the bottom. */
const CLEARANCE_PX = 8;
const BOTTOM_PX = 12;

/** Keeps --toasts-room on the stack's parent equal to the band the stack takes (0 when empty). */
function usePublishedRoom(stack: RefObject<HTMLDivElement | null>): void {
  useLayoutEffect(() => {
    const element = stack.current;
    const area = element?.parentElement;
    if (element == null || area == null) return undefined;
    const publish = () => {
      const height = element.getBoundingClientRect().height;
      const room = height > 0 ? Math.ceil(height) + BOTTOM_PX + CLEARANCE_PX : 0;
      area.style.setProperty('--toasts-room', `${room}px`);
    };
    publish();
    const observer = new ResizeObserver(publish);
    observer.observe(element);
    return () => {
      observer.disconnect();
      area.style.removeProperty('--toasts-room');
    };
  }, [stack]);
}

export function Toasts() {
  const toasts = useStore(toastStore, (s) => s.toasts);
  const stack = useRef<HTMLDivElement>(null);
  usePublishedRoom(stack);
  return (
    <div className="toasts" role="status" aria-live="polite" data-testid="toasts" ref={stack}>
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
