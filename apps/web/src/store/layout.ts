// The person's monitor layout and privacy masks as the bridge last sent them (layout_changed):
// the AI's map (get_display_info, monitor_index) and the areas blacked out of everything the AI
// sees. Written only by the control channel; null until the person saves a layout.
import type { MonitorLayout, PrivacyMask } from '@overlay-companion/protocol';
import { createStore, type StoreApi } from 'zustand/vanilla';

export interface LayoutState {
  layout: MonitorLayout | null;
  layoutChanged: (layout: MonitorLayout | null) => void;
}

export function createLayoutStore(): StoreApi<LayoutState> {
  return createStore<LayoutState>()((set) => ({
    layout: null,
    layoutChanged: (layout) => set({ layout }),
  }));
}

export const layoutStore = createLayoutStore();

const NO_MASKS: readonly PrivacyMask[] = [];

/** The privacy masks in force (desktop pixels). */
export function currentMasks(store: StoreApi<LayoutState> = layoutStore): readonly PrivacyMask[] {
  return store.getState().layout?.masks ?? NO_MASKS;
}
