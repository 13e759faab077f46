// The overlay store. In the control window it is authoritative: tool calls change it and every
// change gets the next sequence number, which goes out with the overlay_* message. In a mirror
// window it follows those messages and sync_state snapshots. The reducers are pure functions
// (tested without a DOM); the zustand store only holds their latest result.
//
// Up to MAX_OVERLAYS (10,000) overlays, so every reducer is one pass over the array at most: a
// 10,000-item batch is one O(n) update, never a filter per overlay. Which ids an array holds is
// kept in an index made once per array and handed on to the next array when a change only adds
// or removes a few (the mirror applies one overlay_created per message; without the hand-over
// each message would rebuild or filter the whole array).
import { MAX_OVERLAYS, type Overlay } from '@overlay-companion/protocol';
import { createStore, type StoreApi } from 'zustand/vanilla';

export interface OverlayData {
  /** In drawing order: later overlays are drawn on top. */
  overlays: readonly Overlay[];
  /** Sequence number of the last change (0 = nothing happened yet). */
  seq: number;
}

export const EMPTY_OVERLAYS: OverlayData = { overlays: [], seq: 0 };

/** The ids each array holds. Arrays are never mutated, so an index stays right for its array. */
const indexes = new WeakMap<readonly Overlay[], Set<string>>();

/** The ids of `overlays` (made once per array, O(n)). */
export function idsOf(overlays: readonly Overlay[]): ReadonlySet<string> {
  let ids = indexes.get(overlays);
  if (ids === undefined) {
    ids = new Set(overlays.map((o) => o.overlay_id));
    indexes.set(overlays, ids);
  }
  return ids;
}

/**
 * Moves `from`'s index to `to` after editing it: O(changes) instead of O(n). `from` loses it (it
 * would be wrong for `from` now) and rebuilds its own if anyone asks again — old arrays are
 * rarely asked.
 */
function handOverIndex(
  from: readonly Overlay[],
  to: readonly Overlay[],
  edit: (ids: Set<string>) => void,
): void {
  const ids = indexes.get(from);
  if (ids === undefined) return;
  indexes.delete(from);
  edit(ids);
  indexes.set(to, ids);
}

/**
 * Adds overlays in order (an overlay whose id is already there replaces it and moves on top;
 * within `added` the last of an id wins), one sequence number each. O(n + added). Undefined when
 * the result would hold more than MAX_OVERLAYS (the caller reports why).
 */
export function withOverlays(
  data: OverlayData,
  added: readonly Overlay[],
): OverlayData | undefined {
  if (added.length === 0) return data;
  const existing = idsOf(data.overlays);
  // The last of each id within `added`, in order.
  const lastOf = new Map<string, number>();
  added.forEach((o, i) => lastOf.set(o.overlay_id, i));
  const fresh =
    lastOf.size === added.length ? added : added.filter((o, i) => lastOf.get(o.overlay_id) === i);
  const replaces = fresh.some((o) => existing.has(o.overlay_id));
  const kept = replaces ? data.overlays.filter((o) => !lastOf.has(o.overlay_id)) : data.overlays;
  if (kept.length + fresh.length > MAX_OVERLAYS) return undefined;
  const overlays = kept.concat(fresh);
  if (replaces) indexes.set(overlays, new Set(overlays.map((o) => o.overlay_id)));
  else handOverIndex(data.overlays, overlays, (ids) => lastOf.forEach((_, id) => ids.add(id)));
  return { overlays, seq: data.seq + added.length };
}

/** Adds one overlay; returns undefined when the store is full (the caller reports why). */
export function withOverlay(data: OverlayData, overlay: Overlay): OverlayData | undefined {
  return withOverlays(data, [overlay]);
}

/**
 * Removes the overlays with these ids in one pass; `removed` lists, in drawing order, those that
 * were there (each took one sequence number). The same data back when none was there.
 */
export function withoutOverlays(
  data: OverlayData,
  overlayIds: Iterable<string>,
): { data: OverlayData; removed: string[] } {
  const existing = idsOf(data.overlays);
  const gone = new Set<string>();
  for (const id of overlayIds) if (existing.has(id)) gone.add(id);
  if (gone.size === 0) return { data, removed: [] };
  const removed: string[] = [];
  const overlays = data.overlays.filter((o) => {
    if (!gone.has(o.overlay_id)) return true;
    removed.push(o.overlay_id);
    return false;
  });
  handOverIndex(data.overlays, overlays, (ids) => gone.forEach((id) => ids.delete(id)));
  return { data: { overlays, seq: data.seq + removed.length }, removed };
}

/** Removes one overlay; the same object back (seq unchanged) when the id is unknown. */
export function withoutOverlay(data: OverlayData, overlayId: string): OverlayData {
  return withoutOverlays(data, [overlayId]).data;
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
      // A full mirror drops its oldest overlay rather than the control window's newest.
      const base =
        data.overlays.length >= MAX_OVERLAYS && !idsOf(data.overlays).has(change.overlay.overlay_id)
          ? withoutOverlays(data, [data.overlays[0]?.overlay_id ?? '']).data
          : data;
      const next = withOverlays(base, [change.overlay]);
      return { outcome: 'applied', data: { overlays: (next ?? base).overlays, seq: change.seq } };
    }
    case 'overlay_removed':
      return {
        outcome: 'applied',
        data: { overlays: withoutOverlay(data, change.overlay_id).overlays, seq: change.seq },
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
