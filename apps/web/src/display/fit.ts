// Scale that fits the whole remote desktop into the area the page gives it, keeping the
// aspect ratio. Pure so it can be unit-tested; RemoteDisplay.tsx applies it with display.scale().

export interface Size {
  width: number;
  height: number;
}

/**
 * Largest scale at which `desktop` fits inside `area`. Returns 1 while either size is still
 * unknown (0 × 0 before the first `size` instruction, or a hidden container), so the display
 * never collapses to nothing or divides by zero.
 */
export function fitScale(area: Size, desktop: Size): number {
  if (!(area.width > 0 && area.height > 0 && desktop.width > 0 && desktop.height > 0)) return 1;
  return Math.min(area.width / desktop.width, area.height / desktop.height);
}
