// This window's viewport (see viewport/viewport.ts) and where its picture sits in the display
// area. Written by RemoteDisplay's fit logic on resize only — never per frame — and read by the
// overlay layer, the tool handlers (screenshot metadata, display info) and the person's events.
import { createStore, type StoreApi } from 'zustand/vanilla';
import { EMPTY_VIEWPORT, type Point, type Viewport } from '../viewport/viewport.js';

export interface ViewportState {
  viewport: Viewport;
  /** Top-left corner of the displayed picture inside the display area, CSS pixels. */
  origin: Point;
  viewportChanged: (viewport: Viewport, origin: Point) => void;
}

function sameViewport(a: Viewport, b: Viewport): boolean {
  return a.vx === b.vx && a.vy === b.vy && a.vw === b.vw && a.vh === b.vh && a.scale === b.scale;
}

export function createViewportStore(): StoreApi<ViewportState> {
  return createStore<ViewportState>()((set, get) => ({
    viewport: EMPTY_VIEWPORT,
    origin: { x: 0, y: 0 },
    viewportChanged: (viewport, origin) => {
      const s = get();
      // ResizeObserver fires often with unchanged values; keep the old objects so nothing renders.
      if (sameViewport(s.viewport, viewport) && s.origin.x === origin.x && s.origin.y === origin.y)
        return;
      set({ viewport, origin });
    },
  }));
}

export const viewportStore = createViewportStore();
