// The AI's overlays on the event track: created, removed and cleared overlays make drawn and
// removed events; a full sync makes events only for what differs (a resent overlay unchanged
// makes none); each desktop keeps its own; a recording that starts gets what is on screen.
import type { Overlay } from '@overlay-companion/protocol';
import { describe, expect, it } from 'vitest';
import { OverlayTrack } from './overlayTrack.js';

const overlay = (id: string, x = 10, label?: string): Overlay => ({
  overlay_id: id,
  bounds: { x, y: 20, width: 30, height: 40 },
  color: '#ff000080',
  opacity: 0.5,
  ...(label === undefined ? {} : { label }),
  click_through: true,
  monitor_index: 0,
  created_at: 1,
});

describe('OverlayTrack', () => {
  it('marks an overlay the bridge handed out once: the window echoing it later adds nothing', () => {
    const track = new OverlayTrack();
    const put = overlay('p', 10, 'Here');
    expect(track.changed('d', { type: 'overlay_put', overlay: put })).toHaveLength(1);
    // The window's echo carries its own clock; what the player draws is the same.
    const echo = { ...put, created_at: 99 };
    expect(track.changed('d', { seq: 4, type: 'overlay_created', overlay: echo })).toEqual([]);
    // The same id drawn elsewhere is a change the track shows.
    expect(
      track.changed('d', { seq: 5, type: 'overlay_created', overlay: overlay('p', 50, 'Here') }),
    ).toHaveLength(1);
  });

  it('turns created, removed and cleared overlays into drawn and removed events', () => {
    const track = new OverlayTrack();
    expect(
      track.changed('d', { seq: 1, type: 'overlay_created', overlay: overlay('a', 10, 'Save') }),
    ).toEqual([
      {
        kind: 'overlay.drawn',
        id: 'a',
        rect: { x: 10, y: 20, width: 30, height: 40 },
        label: 'Save',
        color: '#ff000080',
      },
    ]);
    track.changed('d', { seq: 1, type: 'overlay_created', overlay: overlay('b') });
    // Removing one that is not there says nothing.
    expect(track.changed('d', { seq: 1, type: 'overlay_removed', overlay_id: 'zz' })).toEqual([]);
    expect(track.changed('d', { seq: 1, type: 'overlay_removed', overlay_id: 'a' })).toEqual([
      { kind: 'overlay.removed', id: 'a' },
    ]);
    expect(track.changed('d', { seq: 1, type: 'clear_overlays' })).toEqual([
      { kind: 'overlay.removed', id: 'b' },
    ]);
  });

  it('makes events for what a full sync changes only, per desktop, and lists what is on screen', () => {
    const track = new OverlayTrack();
    track.changed('d', { seq: 1, type: 'overlay_created', overlay: overlay('a') });
    track.changed('d', { seq: 1, type: 'overlay_created', overlay: overlay('b') });
    track.changed('other', { seq: 1, type: 'overlay_created', overlay: overlay('c') });
    const events = track.changed('d', {
      seq: 1,
      type: 'sync_state',
      overlays: [overlay('a'), overlay('b', 99), overlay('n')],
    });
    expect(events.map((e) => [e.kind, 'id' in e ? e.id : ''])).toEqual([
      ['overlay.drawn', 'b'],
      ['overlay.drawn', 'n'],
    ]);
    expect(track.changed('d', { seq: 1, type: 'sync_state', overlays: [overlay('n')] })).toEqual([
      { kind: 'overlay.removed', id: 'a' },
      { kind: 'overlay.removed', id: 'b' },
    ]);
    expect(track.onScreen('d', 5)).toMatchObject([{ kind: 'overlay.drawn', id: 'n', t: 5 }]);
    expect(track.onScreen('other', 5)).toMatchObject([{ id: 'c', t: 5 }]);
    expect(track.onScreen('none', 5)).toEqual([]);
  });
});
