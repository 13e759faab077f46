// The viewer windows of a layout's monitors, one per monitor: each one's address (its monitor's
// crop, on the desktop this page names) and opening them. Shared by the layout page's "Open
// windows" and the plain viewer's offer, so both open the same windows the same way.
import { PAGES, type MonitorLayout } from '@overlay-companion/protocol';
import { monitorWindowQuery } from './urlViewport.js';

/** Where a window goes: a screen's available area (the Window Management API's names). */
export interface ScreenArea {
  availLeft: number;
  availTop: number;
  availWidth: number;
  availHeight: number;
}

/** The viewer address of each monitor of `layout`, in the layout's order. */
export function monitorWindowUrls(layout: MonitorLayout, origin: string): string[] {
  return layout.monitors.map(
    (m, i) => new URL(`${PAGES.viewer}${monitorWindowQuery(m, i)}`, origin).href,
  );
}

/** window.open features that put a window over the whole of `screen`'s available area. */
export function windowFeatures(screen: ScreenArea | undefined): string {
  if (screen === undefined) return 'popup';
  return [
    'popup',
    `left=${screen.availLeft}`,
    `top=${screen.availTop}`,
    `width=${screen.availWidth}`,
    `height=${screen.availHeight}`,
  ].join(',');
}

/**
 * Opens the viewer windows of the monitors at `indexes`, each on the screen `screenOf` names when
 * it knows one. Call it from the click itself: browsers allow pop-ups only then. Returns how many
 * the browser blocked.
 */
export function openMonitorWindows(
  layout: MonitorLayout,
  indexes: readonly number[],
  screenOf: (index: number) => ScreenArea | undefined = () => undefined,
): number {
  const urls = monitorWindowUrls(layout, window.location.origin);
  let blocked = 0;
  for (const i of indexes) {
    const url = urls[i];
    if (url === undefined) continue;
    // Named per monitor: opening again reuses that monitor's window instead of adding one.
    const opened = window.open(url, `overlay-companion-monitor-${i}`, windowFeatures(screenOf(i)));
    if (opened === null) blocked += 1;
  }
  return blocked;
}
