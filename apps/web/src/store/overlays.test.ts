// Overlay store reducers: sequence numbers on every change, no change on unknown ids, the
// capacity limit, and how a mirror applies relayed changes (stale ignored, gaps detected).
import { MAX_OVERLAYS, type Overlay } from '@overlay-companion/protocol';
import { describe, expect, it } from 'vitest';
import { EMPTY_OVERLAYS, applyRemote, cleared, withOverlay, withoutOverlay } from './overlays.js';

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
});
