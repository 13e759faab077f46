// FeedFanout on a real OverlayRelay: every subscriber is handed the same encoded bytes of a
// change (one copy in memory however many have not read it), the current sync is encoded once
// per change, and nothing is kept or followed once the last subscriber leaves.
import { FeedMessage, type Overlay } from '@overlay-companion/protocol';
import { describe, expect, it } from 'vitest';
import { FeedFanout, type EncodedFeedMessage } from './feedFanout.js';
import { OverlayRelay } from './overlayRelay.js';

const OVERLAY: Overlay = {
  overlay_id: 'ov_1',
  bounds: { x: 1, y: 2, width: 3, height: 4 },
  color: 'red',
  opacity: 0.5,
  label: '\u0001"',
  click_through: true,
  monitor_index: 0,
  created_at: 0,
};

const relay = () => new OverlayRelay({ toViewer: () => undefined, toMirrors: () => undefined });
const parse = (m: EncodedFeedMessage) => FeedMessage.parse(JSON.parse(m.bytes.toString('utf8')));

describe('FeedFanout', () => {
  it('hands every subscriber the same bytes of a change, valid feed messages', () => {
    const source = relay();
    const fanout = new FeedFanout(source);
    const a: EncodedFeedMessage[] = [];
    const b: EncodedFeedMessage[] = [];
    fanout.subscribe((m) => a.push(m));
    fanout.subscribe((m) => b.push(m));
    source.handle('v', true, { type: 'overlay_created', overlay: OVERLAY, seq: 1 });
    expect(a).toHaveLength(1);
    expect(a[0]?.bytes).toBe(b[0]?.bytes);
    expect(parse(a[0]!)).toMatchObject({ type: 'overlay_created', seq: 1 });
    // The size counted is the escaped text's: \u0001 is six bytes on the wire.
    expect(a[0]?.bytes.toString('utf8')).toContain('"label":"\\u0001\\""');
  });

  it('encodes the current sync once per change, and takes a sync_state change as the new one', () => {
    const source = relay();
    const fanout = new FeedFanout(source);
    fanout.subscribe(() => undefined);
    const first = fanout.currentSync();
    expect(fanout.currentSync()).toBe(first);
    source.handle('v', true, { type: 'overlay_created', overlay: OVERLAY, seq: 2 });
    const second = fanout.currentSync();
    expect(second).not.toBe(first);
    expect(parse(second)).toMatchObject({ type: 'sync_state', seq: 2 });
    let announced: EncodedFeedMessage | undefined;
    fanout.subscribe((m) => (announced = m));
    source.handle('v', true, { type: 'sync_state', seq: 3, overlays: [] });
    expect(fanout.currentSync()).toBe(announced);
  });

  it('stops following and keeps nothing once the last subscriber leaves', () => {
    const source = relay();
    const fanout = new FeedFanout(source);
    const seen: EncodedFeedMessage[] = [];
    const leave = fanout.subscribe((m) => seen.push(m));
    fanout.currentSync();
    leave();
    expect(fanout.size).toBe(0);
    source.handle('v', true, { type: 'overlay_created', overlay: OVERLAY, seq: 4 });
    expect(seen).toHaveLength(0);
    // Not followed, so not cached: a later sync still shows the change.
    expect(parse(fanout.currentSync())).toMatchObject({ seq: 4 });
  });
});
