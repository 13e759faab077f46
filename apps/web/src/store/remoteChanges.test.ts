// A mirror's burst of relayed changes applied in one pass (remoteChanges.ts) gives exactly what
// applying them one by one gives (applyRemote): random bursts of draws, redraws of an id,
// removals (known and unknown ids), clears and stale repeats, on an empty store and on a full
// one (the oldest overlay makes room); a gap stops the burst there and says so.
import { MAX_OVERLAYS, type Overlay } from '@overlay-companion/protocol';
import { describe, expect, it } from 'vitest';
import { applyRemote, idsOf, type OverlayData, type RemoteChange } from './overlays.js';
import { applyRemoteChanges } from './remoteChanges.js';

function overlay(id: string, x = 1): Overlay {
  return {
    overlay_id: id,
    bounds: { x, y: 2, width: 3, height: 4 },
    color: 'red',
    opacity: 0.5,
    click_through: true,
    monitor_index: 0,
    created_at: 1_700_000_000_000,
  };
}

/** The changes applied one at a time, as a mirror did before. */
function oneByOne(data: OverlayData, changes: readonly RemoteChange[]): OverlayData {
  let now = data;
  for (const change of changes) {
    const applied = applyRemote(now, change);
    if (applied.outcome === 'applied') now = applied.data;
  }
  return now;
}

/** A seeded random burst of `length` changes after `seq`, over ids `ids`. */
function burst(seed: number, seq: number, length: number, ids: readonly string[]): RemoteChange[] {
  let state = seed;
  const next = (n: number) => {
    state = (state * 1_103_515_245 + 12_345) % 2_147_483_648;
    return state % n;
  };
  const changes: RemoteChange[] = [];
  for (let i = 0; i < length; i++) {
    const kind = next(20);
    const id = ids[next(ids.length)] ?? 'x';
    if (kind === 0) changes.push({ type: 'clear_overlays', seq: ++seq });
    else if (kind === 1 && changes.length > 0)
      changes.push({ ...changes.at(-1)!, seq }); // stale repeat
    else if (kind < 9) changes.push({ type: 'overlay_removed', overlay_id: id, seq: ++seq });
    else changes.push({ type: 'overlay_created', overlay: overlay(id, i), seq: ++seq });
  }
  return changes;
}

const ids = (data: OverlayData) => data.overlays.map((o) => o.overlay_id);

describe('a burst of relayed overlay changes', () => {
  it('ends where the changes applied one by one end, and keeps the store index right', () => {
    const start: OverlayData = { overlays: ['a', 'b', 'c', 'd'].map((id) => overlay(id)), seq: 7 };
    const names = ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h'];
    for (let seed = 1; seed <= 300; seed++) {
      const changes = burst(seed, start.seq, 1 + (seed % 40), names);
      const expected = oneByOne(start, changes);
      const { data, gap } = applyRemoteChanges(start, changes);
      expect(gap).toBe(false);
      expect(data.seq).toBe(expected.seq);
      expect(data.overlays).toEqual(expected.overlays);
      expect([...idsOf(data.overlays)].sort()).toEqual(ids(expected).sort());
    }
  });

  it('on a full store, each new overlay pushes out the oldest, as one by one', () => {
    const full: OverlayData = {
      overlays: Array.from({ length: MAX_OVERLAYS }, (_, i) => overlay(`o${i}`)),
      seq: 100,
    };
    const changes: RemoteChange[] = [
      { type: 'overlay_created', overlay: overlay('n1'), seq: 101 },
      { type: 'overlay_created', overlay: overlay('o5', 9), seq: 102 }, // redraw: nothing pushed
      { type: 'overlay_removed', overlay_id: 'o1', seq: 103 }, // oldest already pushed out
      { type: 'overlay_removed', overlay_id: 'o2', seq: 104 },
      { type: 'overlay_created', overlay: overlay('n2'), seq: 105 }, // room now
      { type: 'overlay_created', overlay: overlay('n3'), seq: 106 },
    ];
    const expected = oneByOne(full, changes);
    const { data } = applyRemoteChanges(full, changes);
    expect(data.overlays).toEqual(expected.overlays);
    expect(data.overlays).toHaveLength(MAX_OVERLAYS);
    expect(ids(data).slice(0, 2)).toEqual(['o3', 'o4']);
    expect(ids(data).slice(-4)).toEqual(['n1', 'o5', 'n2', 'n3']);
  });

  it('stops at a gap and says so; an already-seen burst changes nothing', () => {
    const start: OverlayData = { overlays: [overlay('a')], seq: 3 };
    const { data, gap } = applyRemoteChanges(start, [
      { type: 'overlay_created', overlay: overlay('b'), seq: 4 },
      { type: 'overlay_removed', overlay_id: 'a', seq: 6 },
      { type: 'overlay_created', overlay: overlay('c'), seq: 7 },
    ]);
    expect(gap).toBe(true);
    expect(data).toEqual({ overlays: [overlay('a'), overlay('b')], seq: 4 });
    const seen = applyRemoteChanges(start, [
      { type: 'overlay_removed', overlay_id: 'a', seq: 2 },
      { type: 'clear_overlays', seq: 3 },
    ]);
    expect(seen).toEqual({ data: start, gap: false });
  });
});
