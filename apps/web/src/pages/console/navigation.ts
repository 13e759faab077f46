// Client-side navigation between the console's pages (one HTML page, several paths): the
// current path as React state, and links that push history instead of reloading — except when
// the person asked for a new tab or window (modifier keys, middle button).
import { useSyncExternalStore, type MouseEvent } from 'react';

const NAVIGATED = 'overlay-companion:navigated';

function subscribe(onChange: () => void): () => void {
  window.addEventListener('popstate', onChange);
  window.addEventListener(NAVIGATED, onChange);
  return () => {
    window.removeEventListener('popstate', onChange);
    window.removeEventListener(NAVIGATED, onChange);
  };
}

/** The current location's path and query, re-rendering on every navigation. */
export function useLocationPath(): string {
  return useSyncExternalStore(
    subscribe,
    () => `${window.location.pathname}${window.location.search}`,
  );
}

export function navigate(href: string): void {
  window.history.pushState(null, '', href);
  window.dispatchEvent(new Event(NAVIGATED));
}

/** onClick for an <a href> to a page of this app. */
export function followInApp(event: MouseEvent<HTMLAnchorElement>, href: string): void {
  if (event.defaultPrevented || event.button !== 0) return;
  if (event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
  event.preventDefault();
  navigate(href);
}
