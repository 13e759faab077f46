import { describe, expect, it } from 'vitest';
import { FrameState } from './frameState.js';

describe('FrameState', () => {
  it('replays a copy whose source the browser already shows correctly', () => {
    const s = new FrameState(200, 100);
    s.addCopy({ srcX: 0, srcY: 0, x: 100, y: 0, width: 50, height: 50 });
    const frame = s.take();
    expect(frame.copies).toHaveLength(1);
    expect(frame.rects).toEqual([]);
    expect(s.hasPending).toBe(false);
  });

  it('turns a copy from a stale source into a dirty destination', () => {
    const s = new FrameState(200, 100);
    s.markDirty({ x: 10, y: 10, width: 5, height: 5 });
    s.addCopy({ srcX: 0, srcY: 0, x: 100, y: 50, width: 50, height: 50 });
    const frame = s.take();
    expect(frame.copies).toEqual([]);
    expect(frame.rects).toContainEqual({ x: 100, y: 50, width: 50, height: 50 });
  });

  it('keeps a copy whose source is clear of pending dirt', () => {
    const s = new FrameState(200, 100);
    s.markDirty({ x: 150, y: 80, width: 5, height: 5 });
    s.addCopy({ srcX: 0, srcY: 0, x: 100, y: 0, width: 50, height: 50 });
    expect(s.take().copies).toHaveLength(1);
  });

  it('demotes copies past the cap instead of queueing without bound', () => {
    const s = new FrameState(2000, 100);
    for (let i = 0; i < 40; i++)
      s.addCopy({ srcX: 0, srcY: 0, x: i * 10 + 100, y: 0, width: 1, height: 1 });
    const frame = s.take();
    expect(frame.copies).toHaveLength(32);
    expect(frame.rects.length).toBeGreaterThan(0);
  });

  it('a resize voids queued copies and redraws the whole new screen', () => {
    const s = new FrameState(200, 100);
    s.addCopy({ srcX: 0, srcY: 0, x: 100, y: 0, width: 50, height: 50 });
    s.resize(300, 150);
    const frame = s.take();
    expect(frame.size).toEqual({ width: 300, height: 150 });
    expect(frame.copies).toEqual([]);
    expect(frame.rects).toEqual([{ x: 0, y: 0, width: 300, height: 150 }]);
  });
});
