import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { SilenceWatch } from './silenceWatch.js';

describe('SilenceWatch', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  function watch() {
    const probe = vi.fn();
    const silent = vi.fn();
    const w = new SilenceWatch({ probeAfterMs: 2000, deadlineMs: 4000, probe, silent });
    return { w, probe, silent };
  }

  it('probes after the quiet time and gives up once the deadline passes with nothing heard', () => {
    const { w, probe, silent } = watch();
    vi.advanceTimersByTime(1900);
    expect(probe).not.toHaveBeenCalled();
    vi.advanceTimersByTime(600);
    expect(probe).toHaveBeenCalledTimes(1);
    vi.advanceTimersByTime(3000);
    expect(silent).not.toHaveBeenCalled();
    vi.advanceTimersByTime(1500);
    expect(silent).toHaveBeenCalledTimes(1);
    // Within probe + deadline + one tick (500 ms).
    expect(silent.mock.calls[0]?.[0]).toBeGreaterThanOrEqual(6000);
    expect(silent.mock.calls[0]?.[0]).toBeLessThanOrEqual(6500);
    vi.advanceTimersByTime(20_000);
    expect(silent).toHaveBeenCalledTimes(1);
    expect(probe).toHaveBeenCalledTimes(1);
    w.stop();
  });

  it('a still server that answers its probes is never called silent', () => {
    const { w, probe, silent } = watch();
    for (let i = 0; i < 40; i++) {
      vi.advanceTimersByTime(1000);
      // The server answers a probe with a frame a little later, as a real one does.
      if (probe.mock.calls.length > i / 4) w.drew();
    }
    expect(probe.mock.calls.length).toBeGreaterThan(5);
    expect(silent).not.toHaveBeenCalled();
    w.stop();
  });

  it('a server that keeps drawing is not probed', () => {
    const { w, probe, silent } = watch();
    for (let i = 0; i < 50; i++) {
      vi.advanceTimersByTime(1500);
      w.drew();
    }
    expect(probe).not.toHaveBeenCalled();
    expect(silent).not.toHaveBeenCalled();
    expect(w.quietForMs).toBe(0);
    w.stop();
  });

  it('bytes that are not frames (input fences) keep it alive, but the probe still goes out for a frame', () => {
    const { w, probe, silent } = watch();
    // Answers to input fences every 300 ms on a still desktop: no frame comes by itself.
    for (let i = 0; i < 10; i++) {
      vi.advanceTimersByTime(300);
      w.heard();
    }
    // 3 s without a frame: the probe went out (its answer is the browsers' keep-alive frame).
    expect(probe).toHaveBeenCalledTimes(1);
    // Long after the deadline, bytes still flowing: alive, never silent.
    for (let i = 0; i < 30; i++) {
      vi.advanceTimersByTime(300);
      w.heard();
    }
    expect(silent).not.toHaveBeenCalled();
    // The frame answering it ends the probe; the next one follows a quiet time later.
    w.drew();
    vi.advanceTimersByTime(1900);
    expect(probe).toHaveBeenCalledTimes(1);
    vi.advanceTimersByTime(600);
    expect(probe).toHaveBeenCalledTimes(2);
    w.stop();
  });

  it('stop() ends the watch', () => {
    const { w, probe, silent } = watch();
    w.stop();
    vi.advanceTimersByTime(60_000);
    expect(probe).not.toHaveBeenCalled();
    expect(silent).not.toHaveBeenCalled();
  });
});
