// UiEventStream follows the frames (a picture readback per drawn frame) only while someone wants
// screen_change: with a FAKE FrameWatch (counts its subscribers, hands out samples) and the
// window/document as bare EventTargets (no DOM in this test environment).
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { EventType, UiEvent } from '@overlay-companion/protocol';
import type { FrameSample, FrameWatch, SampleListener } from './screen/frameWatch.js';
import { UiEventStream } from './uiEvents.js';

class FakeFrames {
  readonly listeners = new Set<SampleListener>();
  subscribe(listener: SampleListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
  emit(sample: FrameSample) {
    for (const l of [...this.listeners]) l(sample);
  }
}

function setup(initial: readonly EventType[] | null) {
  let interest = initial;
  const changes = new Set<() => void>();
  const frames = new FakeFrames();
  const sent: UiEvent[] = [];
  const stream = new UiEventStream({
    send: (e) => sent.push(e),
    interest: () => interest,
    interestChanges: (listener) => {
      changes.add(listener);
      return () => changes.delete(listener);
    },
    viewport: () => ({ vx: 0, vy: 0, vw: 64, vh: 32, scale: 1 }),
    frames: frames as unknown as FrameWatch,
  });
  const setInterest = (next: readonly EventType[] | null) => {
    interest = next;
    for (const l of [...changes]) l();
  };
  return { stream, frames, sent, setInterest, changes };
}

const sample: FrameSample = {
  data: new Uint8ClampedArray(4),
  width: 1,
  height: 1,
  dirty: { x: 0, y: 0, width: 32, height: 32 },
  at: 1,
};

describe('UiEventStream screen changes', () => {
  beforeEach(() => {
    vi.stubGlobal('window', new EventTarget());
    vi.stubGlobal('document', new EventTarget());
  });
  afterEach(() => vi.unstubAllGlobals());

  it('does not follow the frames while nobody wants screen_change', () => {
    const { stream, frames } = setup([]);
    stream.start();
    expect(frames.listeners.size).toBe(0);
  });

  it('follows them once someone subscribes, and lets go when they leave', () => {
    const { stream, frames, sent, setInterest } = setup(['mouse_click']);
    const stop = stream.start();
    expect(frames.listeners.size).toBe(0);
    setInterest(['screen_change']);
    expect(frames.listeners.size).toBe(1);
    frames.emit(sample);
    expect(sent.map((e) => e.type)).toEqual(['screen_change']);
    setInterest(['screen_change', 'key_press']);
    expect(frames.listeners.size).toBe(1);
    setInterest([]);
    expect(frames.listeners.size).toBe(0);
    setInterest(['screen_change']);
    stop();
    expect(frames.listeners.size).toBe(0);
  });

  it('follows them while the interest is unknown (an older bridge sends everything)', () => {
    const { stream, frames, changes } = setup(null);
    const stop = stream.start();
    expect(frames.listeners.size).toBe(1);
    stop();
    expect(changes.size).toBe(0);
  });
});
