// A mirror window's burst of relayed overlay changes applied in one pass. The control window
// sends one overlay_created or overlay_removed per overlay (a batch of 20 is 20 messages), and a
// mirror applying each on its own rebuilt its whole store every time — a new 5,000-overlay array
// and one store update per message. Here a burst is folded over the store once: O(store + burst),
// one new array, the same result as applying the changes one by one with applyRemote (tested
// against it), including a full mirror dropping its oldest overlay for a new one.
import { MAX_OVERLAYS, type Overlay } from '@overlay-companion/protocol';
import {
  applyRemote,
  idsOf,
  withOverlays,
  withoutOverlays,
  type OverlayData,
  type RemoteChange,
} from './overlays.js';

/**
 * `changes` applied in order to `data`: the data after the last one that applied, and whether a
 * change was missing before one of them (`gap`: the mirror must ask for a snapshot; the changes
 * from there on are not applied). Stale changes (already seen) are skipped.
 */
export function applyRemoteChanges(
  data: OverlayData,
  changes: readonly RemoteChange[],
): { data: OverlayData; gap: boolean } {
  if (changes.length === 1 && changes[0] !== undefined) {
    const one = applyRemote(data, changes[0]);
    return one.outcome === 'applied'
      ? { data: one.data, gap: false }
      : { data, gap: one.outcome === 'gap' };
  }
  // The store as: the overlays of `base` not in `gone`, then `added` in insertion order (a Map
  // keeps it, and an id drawn again is deleted and set, so it goes on top).
  let base = data.overlays;
  let baseIds = idsOf(base);
  const gone = new Set<string>();
  const added = new Map<string, Overlay>();
  /** Index in `base` below which every overlay is gone (where the oldest remaining one is). */
  let bottom = 0;
  let seq = data.seq;
  let gap = false;
  const holds = (id: string) => added.has(id) || (baseIds.has(id) && !gone.has(id));
  const drop = (id: string) => {
    if (!added.delete(id) && baseIds.has(id)) gone.add(id);
  };
  for (const change of changes) {
    if (change.seq <= seq) continue;
    if (change.seq !== seq + 1) {
      gap = true;
      break;
    }
    seq = change.seq;
    switch (change.type) {
      case 'overlay_created': {
        const id = change.overlay.overlay_id;
        const count = base.length - gone.size + added.size;
        if (count >= MAX_OVERLAYS && !holds(id)) {
          // A full mirror drops its oldest overlay rather than the control window's newest.
          while (bottom < base.length && gone.has(base[bottom]!.overlay_id)) bottom++;
          const oldest = base[bottom]?.overlay_id ?? added.keys().next().value;
          if (oldest !== undefined) drop(oldest);
        }
        drop(id);
        added.set(id, change.overlay);
        break;
      }
      case 'overlay_removed':
        drop(change.overlay_id);
        break;
      case 'clear_overlays':
        base = [];
        baseIds = idsOf(base);
        gone.clear();
        added.clear();
        bottom = 0;
        break;
    }
  }
  if (seq === data.seq) return { data, gap };
  const kept = withoutOverlays({ overlays: base, seq }, gone).data.overlays;
  const overlays = withOverlays({ overlays: kept, seq }, [...added.values()])?.overlays ?? kept;
  return { data: { overlays, seq }, gap };
}
