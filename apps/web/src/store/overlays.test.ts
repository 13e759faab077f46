// Overlay store reducers: sequence numbers on every change, no change on unknown ids, the
// capacity limit, batches of MAX_OVERLAYS in one pass, the id index handed from array to array,
// and how a mirror applies relayed changes (stale ignored, gaps detected, 10,000 in a row).
import { MAX_OVERLAYS, type Overlay } from '@overlay-companion/protocol';
import { describe, expect, it } from 'vitest';
import {
  EMPTY_OVERLAYS,
  applyRemote,
  cleared,
  idsOf,
  withOverlay,
  withOverlays,
  withoutOverlay,
  withoutOverlays,
  type OverlayData,
} from './overlays.js';

function overlay(id: string): Overlay {
  return {
    overlay_id: id,
    bounds: { x: 1, y: 2, width: 3, height: 4 },
    color: 'red',
    opacity: 0.5,
    click_through: true,
    monitor_index: 0,
    created_at: 1_700_000_000_000,
  };
}

describe('overlay reducers', () => {
  it('numbers every change', () => {
    const a = withOverlay(EMPTY_OVERLAYS, overlay('a'));
    const b = a && withOverlay(a, overlay('b'));
    expect(b?.seq).toBe(2);
    expect(b?.overlays.map((o) => o.overlay_id)).toEqual(['a', 'b']);
    const c = b && withoutOverlay(b, 'a');
    expect(c?.seq).toBe(3);
    expect(c && cleared(c)).toEqual({ overlays: [], seq: 4 });
  });

  it('leaves the store untouched when removing an unknown id', () => {
    const a = withOverlay(EMPTY_OVERLAYS, overlay('a'));
    expect(a && withoutOverlay(a, 'zzz')).toBe(a);
  });

  it('adds a batch in order with one seq each; a known id is replaced and moves on top, the last of a repeated id wins', () => {
    const start = withOverlays(EMPTY_OVERLAYS, [overlay('a'), overlay('b'), overlay('c')]);
    expect(start?.seq).toBe(3);
    const again =
      start &&
      withOverlays(start, [
        { ...overlay('a'), color: 'blue' },
        overlay('d'),
        { ...overlay('d'), color: 'gold' },
      ]);
    expect(again?.seq).toBe(6);
    expect(again?.overlays.map((o) => [o.overlay_id, o.color])).toEqual([
      ['b', 'red'],
      ['c', 'red'],
      ['a', 'blue'],
      ['d', 'gold'],
    ]);
    expect(again && [...idsOf(again.overlays)].sort()).toEqual(['a', 'b', 'c', 'd']);
  });

  it('takes MAX_OVERLAYS in one batch and refuses one more', () => {
    const many = Array.from({ length: MAX_OVERLAYS }, (_, i) => overlay(`o${i}`));
    const full = withOverlays(EMPTY_OVERLAYS, many);
    expect(full?.overlays).toHaveLength(MAX_OVERLAYS);
    expect(full?.seq).toBe(MAX_OVERLAYS);
    expect(full && withOverlays(full, [overlay('extra')])).toBeUndefined();
    // Replacing one that is there still fits.
    expect(full && withOverlays(full, [overlay('o5')])?.overlays.at(-1)?.overlay_id).toBe('o5');
  });

  it('removes many in one pass, listing those that were there in drawing order', () => {
    const data = withOverlays(EMPTY_OVERLAYS, ['a', 'b', 'c', 'd'].map(overlay)) ?? EMPTY_OVERLAYS;
    const { data: after, removed } = withoutOverlays(data, ['d', 'zzz', 'b']);
    expect(removed).toEqual(['b', 'd']);
    expect(after.seq).toBe(data.seq + 2);
    expect(after.overlays.map((o) => o.overlay_id)).toEqual(['a', 'c']);
    expect([...idsOf(after.overlays)].sort()).toEqual(['a', 'c']);
    // The array the index was handed on from still answers for itself.
    expect([...idsOf(data.overlays)].sort()).toEqual(['a', 'b', 'c', 'd']);
    expect(withoutOverlays(after, ['zzz']).data).toBe(after);
  });

  it('refuses the overlay after MAX_OVERLAYS', () => {
    let data = EMPTY_OVERLAYS;
    for (let i = 0; i < MAX_OVERLAYS; i++) data = withOverlay(data, overlay(`o${i}`)) ?? data;
    expect(data.overlays).toHaveLength(MAX_OVERLAYS);
    expect(withOverlay(data, overlay('one-too-many'))).toBeUndefined();
  });
});

describe('applyRemote (mirror)', () => {
  it('applies the next change, ignores old ones, reports gaps', () => {
    const one = applyRemote(EMPTY_OVERLAYS, {
      type: 'overlay_created',
      overlay: overlay('a'),
      seq: 1,
    });
    expect(one.outcome).toBe('applied');
    const data = one.outcome === 'applied' ? one.data : EMPTY_OVERLAYS;
    expect(data.overlays).toHaveLength(1);
    expect(applyRemote(data, { type: 'clear_overlays', seq: 1 }).outcome).toBe('stale');
    expect(applyRemote(data, { type: 'overlay_removed', overlay_id: 'a', seq: 3 }).outcome).toBe(
      'gap',
    );
    const removed = applyRemote(data, { type: 'overlay_removed', overlay_id: 'a', seq: 2 });
    expect(removed).toEqual({ outcome: 'applied', data: { overlays: [], seq: 2 } });
  });

  it('follows 10,000 overlay_created in a row, then removals, keeping its index right', () => {
    let data: OverlayData = EMPTY_OVERLAYS;
    for (let i = 1; i <= MAX_OVERLAYS; i++) {
      const r = applyRemote(data, { type: 'overlay_created', overlay: overlay(`o${i}`), seq: i });
      if (r.outcome !== 'applied') throw new Error(`change ${i} was ${r.outcome}`);
      data = r.data;
    }
    expect(data.overlays).toHaveLength(MAX_OVERLAYS);
    expect(idsOf(data.overlays).size).toBe(MAX_OVERLAYS);
    // A full mirror makes room by dropping its oldest.
    const more = applyRemote(data, {
      type: 'overlay_created',
      overlay: overlay('new'),
      seq: MAX_OVERLAYS + 1,
    });
    const full = more.outcome === 'applied' ? more.data : EMPTY_OVERLAYS;
    expect(full.overlays).toHaveLength(MAX_OVERLAYS);
    expect(full.overlays[0]?.overlay_id).toBe('o2');
    expect(full.overlays.at(-1)?.overlay_id).toBe('new');
    const removed = applyRemote(full, {
      type: 'overlay_removed',
      overlay_id: 'o500',
      seq: MAX_OVERLAYS + 2,
    });
    const after = removed.outcome === 'applied' ? removed.data : EMPTY_OVERLAYS;
    expect(idsOf(after.overlays).has('o500')).toBe(false);
    expect(after.overlays).toHaveLength(MAX_OVERLAYS - 1);
  });
});
