// The toast stack (store/toasts.ts): bottom centre over the desktop area, announced politely to
// screen readers, each with a Dismiss button reachable by keyboard. The stack's band at the
// bottom is its own while it shows: its height (with the gaps) is published on the page as
// --toasts-room, and the panels a toast must never cover — the viewer menu, the approval panel
// with its Deny and Stop (and the held actions, which wear its styles), the action log, the live
// timeline, the files panel, the approvals waiting on the person's other desktops — end
// above it (menu.css, confirmPanel.css, liveTimeline.css, files.css, fleet.css), so on
// a phone, where a panel is as wide as the window, a "Denied: …" toast does not hide its last
// rows. The bar (and its Stop) is above the desktop area the stack lives in.
import { useLayoutEffect, useRef, type RefObject } from 'react';
import { useStore } from 'zustand';
import { toastStore } from '../store/toasts.js';

/** Between the stack's top and a panel's bottom, besides the stack's own 12 px from the bottom. */
const CLEARANCE_PX = 8;
const BOTTOM_PX = 12;

/**
 * Keeps --toasts-room on the page equal to the band the stack takes (0 when empty): on the root,
 * since the live timeline opens from the bar, outside the desktop area. The desktop area ends at
 * the window's bottom, so the band is the same measured from either.
 */
function usePublishedRoom(stack: RefObject<HTMLDivElement | null>): void {
  useLayoutEffect(() => {
    const element = stack.current;
    const area = document.documentElement;
    if (element == null) return undefined;
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
