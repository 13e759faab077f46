// The plain viewer's offer to open the monitor windows: when the desktop's layout has two or more
// monitors, the whole wide desktop shrunk into this one window is rarely what the person wants, so
// a small card offers the windows the layout page's "Open windows" opens (monitorWindows.ts, the
// same code). Only in a window without a crop (no vx=…) that someone watches (not the headless
// viewer); at the desktop area's bottom right, away from the bar, so it never covers Stop.
// "Not now" hides it for that layout in this browser; a changed layout offers again.
import type { MonitorLayout } from '@overlay-companion/protocol';
import { useState } from 'react';
import { useStore } from 'zustand';
import { focusDesktop } from '../menu/ClientMenu.js';
import { controlStore } from '../store/control.js';
import { layoutStore } from '../store/layout.js';
import { openMonitorWindows } from './monitorWindows.js';
import { currentCrop } from './urlViewport.js';
import './monitorWindowsOffer.css';

const DISMISSED_KEY = 'overlay-companion.monitorWindowsOffer.dismissed';

/** The monitors' rectangles, as text: what a dismissal is remembered for. */
function layoutKey(layout: MonitorLayout): string {
  return layout.monitors.map((m) => `${m.x},${m.y},${m.width},${m.height}`).join(';');
}

function dismissedKey(): string | null {
  try {
    return globalThis.localStorage?.getItem(DISMISSED_KEY) ?? null;
  } catch {
    return null;
  }
}

export function MonitorWindowsOffer() {
  const layout = useStore(layoutStore, (s) => s.layout);
  const headless = useStore(controlStore, (s) => s.headless);
  const [dismissed, setDismissed] = useState(dismissedKey);
  const [outcome, setOutcome] = useState<string | null>(null);
  const crop = currentCrop();
  const plain = 'crop' in crop && crop.crop === undefined;
  if (!plain || headless || layout === null || layout.monitors.length < 2) return null;
  const key = layoutKey(layout);
  if (dismissed === key) return null;
  const count = layout.monitors.length;

  const open = () => {
    const blocked = openMonitorWindows(
      layout,
      layout.monitors.map((_, i) => i),
    );
    setOutcome(
      blocked === 0
        ? `Opened ${count} windows. In each, press F11 (or choose Full screen in its menu) to fill its screen.`
        : `The browser blocked ${blocked} of ${count} windows. Allow pop-ups for this site and try again, or open them from Monitor layout.`,
    );
  };

  const dismiss = () => {
    try {
      globalThis.localStorage?.setItem(DISMISSED_KEY, key);
    } catch {
      // Private mode or a full quota: hidden for this page only.
    }
    setDismissed(key);
    // The card and its focused button are gone: the keyboard goes back to the desktop.
    focusDesktop();
  };

  return (
    <section className="monitor-offer" aria-label="Monitor windows" data-testid="monitor-offer">
      <p className="monitor-offer__text" role="status">
        {outcome ?? `Your layout has ${count} monitors: show each in its own window.`}
      </p>
      <div className="monitor-offer__actions">
        <button type="button" className="status-bar__button monitor-offer__open" onClick={open}>
          Open monitor windows
        </button>
        <button type="button" className="status-bar__button" onClick={dismiss}>
          {outcome === null ? 'Not now' : 'Close'}
        </button>
      </div>
    </section>
  );
}
