// The overlay store. In the control window it is authoritative: tool calls change it and every
// change gets the next sequence number, which goes out with the overlay_* message. In a mirror
// window it follows those messages and sync_state snapshots. The reducers are pure functions
// (tested without a DOM); the zustand store only holds their latest result.
import { MAX_OVERLAYS, type Overlay } from '@overlay-companion/protocol';
import { createStore, type StoreApi } from 'zustand/vanilla';

export interface OverlayData {
  /** In drawing order: later overlays are drawn on top. */
  overlays: readonly Overlay[];
  /** Sequence number of the last change (0 = nothing happened yet). */
  seq: number;
}

export const EMPTY_OVERLAYS: OverlayData = { overlays: [], seq: 0 };

/** Adds one overlay; returns undefined when the store is full (the caller reports why). */
export function withOverlay(data: OverlayData, overlay: Overlay): OverlayData | undefined {
  if (data.overlays.length >= MAX_OVERLAYS) return undefined;
  const rest = data.overlays.filter((o) => o.overlay_id !== overlay.overlay_id);
  return { overlays: [...rest, overlay], seq: data.seq + 1 };
}

/** Removes one overlay; the same object back (seq unchanged) when the id is unknown. */
export function withoutOverlay(data: OverlayData, overlayId: string): OverlayData {
  const rest = data.overlays.filter((o) => o.overlay_id !== overlayId);
  if (rest.length === data.overlays.length) return data;
  return { overlays: rest, seq: data.seq + 1 };
}

/** Removes every overlay; a clear always counts as a change, even of an empty store. */
export function cleared(data: OverlayData): OverlayData {
  return { overlays: [], seq: data.seq + 1 };
}

/** A change relayed from the control window, as seen by a mirror. */
export type RemoteChange =
  | { type: 'overlay_created'; overlay: Overlay; seq: number }
  | { type: 'overlay_removed'; overlay_id: string; seq: number }
  | { type: 'clear_overlays'; seq: number };

/**
 * Applies a relayed change in a mirror. `stale`: already seen (ignored). `gap`: changes were
 * missed, so the mirror must ask for a snapshot (request_sync) instead of guessing.
 */
export function applyRemote(
  data: OverlayData,
  change: RemoteChange,
): { outcome: 'applied'; data: OverlayData } | { outcome: 'stale' | 'gap' } {
  if (change.seq <= data.seq) return { outcome: 'stale' };
  if (change.seq !== data.seq + 1) return { outcome: 'gap' };
  switch (change.type) {
    case 'overlay_created': {
      const rest = data.overlays.filter((o) => o.overlay_id !== change.overlay.overlay_id);
      return {
        outcome: 'applied',
        data: { overlays: [...rest, change.overlay].slice(-MAX_OVERLAYS), seq: change.seq },
      };
    }
    case 'overlay_removed':
      return {
        outcome: 'applied',
        data: {
          overlays: data.overlays.filter((o) => o.overlay_id !== change.overlay_id),
          seq: change.seq,
        },
      };
    case 'clear_overlays':
      return { outcome: 'applied', data: { overlays: [], seq: change.seq } };
    default: {
      const unknown: never = change;
      void unknown;
      return { outcome: 'stale' };
    }
  }
}

export interface OverlayState extends OverlayData {
  /** Replace the whole data (the control window's reducers and mirror updates go through here). */
  replaced: (data: OverlayData) => void;
}

export function createOverlayStore(): StoreApi<OverlayState> {
  return createStore<OverlayState>()((set) => ({
    ...EMPTY_OVERLAYS,
    replaced: (data) => set({ overlays: data.overlays, seq: data.seq }),
  }));
}

export function overlayData(store: StoreApi<OverlayState>): OverlayData {
  const { overlays, seq } = store.getState();
  return { overlays, seq };
}

export const overlayStore = createOverlayStore();
