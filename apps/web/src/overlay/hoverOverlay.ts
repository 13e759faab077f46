// Which overlay the person points at (or focuses in the menu's overlay list), so its label is
// shown whole, and whether the pointer is over an interactive overlay (a hand cursor: a click
// there goes to the overlay). The overlay layer takes no pointer events, so hovering is a
// hit-test of the pointer over the display area: once per animation frame at most, and a store
// update only when the answer changes — never a render per pointer move.
import { createStore } from 'zustand/vanilla';
import { overlayStore } from '../store/overlays.js';
import { viewportStore } from '../store/viewport.js';
import { windowToDesktop } from '../viewport/viewport.js';
import { catchingOverlayAt } from './interactive.js';

/** On the display area while the pointer is over an interactive overlay (overlays.css). */
const CATCHES_CLASS = 'remote-display--catches';

export const hoverStore = createStore<{ overlayId: string | null }>()(() => ({ overlayId: null }));

export function hoverChanged(overlayId: string | null): void {
  if (hoverStore.getState().overlayId !== overlayId) hoverStore.setState({ overlayId });
}

/** The topmost overlay under a point of the layer (CSS pixels from its top-left), if any. */
export function overlayAt(x: number, y: number): string | null {
  const { viewport } = viewportStore.getState();
  const p = windowToDesktop(viewport, { x, y });
  const overlays = overlayStore.getState().overlays;
  for (let i = overlays.length - 1; i >= 0; i--) {
    const o = overlays[i];
    if (o === undefined || o.label === undefined || o.label === '') continue;
    const b = o.bounds;
    if (p.x >= b.x && p.y >= b.y && p.x < b.x + b.width && p.y < b.y + b.height)
      return o.overlay_id;
  }
  return null;
}

/** Hit-test pointer moves over `area`; returns the undo. */
export function watchOverlayHover(area: HTMLElement): () => void {
  let frame = 0;
  let last: PointerEvent | null = null;
  const test = () => {
    frame = 0;
    if (last === null) return;
    const { origin, viewport } = viewportStore.getState();
    const rect = area.getBoundingClientRect();
    const x = last.clientX - rect.left - origin.x;
    const y = last.clientY - rect.top - origin.y;
    hoverChanged(overlayAt(x, y));
    const d = windowToDesktop(viewport, { x, y });
    const catches = catchingOverlayAt({ x: Math.floor(d.x), y: Math.floor(d.y) });
    area.classList.toggle(CATCHES_CLASS, catches !== undefined);
  };
  const move = (event: PointerEvent) => {
    last = event;
    if (frame === 0) frame = requestAnimationFrame(test);
  };
  const leave = () => {
    last = null;
    hoverChanged(null);
    area.classList.remove(CATCHES_CLASS);
  };
  area.addEventListener('pointermove', move, { passive: true });
  area.addEventListener('pointerleave', leave);
  return () => {
    if (frame !== 0) cancelAnimationFrame(frame);
    area.removeEventListener('pointermove', move);
    area.removeEventListener('pointerleave', leave);
    area.classList.remove(CATCHES_CLASS);
  };
}
