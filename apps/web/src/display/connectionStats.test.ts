import { beforeEach, describe, expect, it } from 'vitest';
import { frameArrived, inputSent, publish, statsReset, statsStore } from './connectionStats.js';

describe('connection stats', () => {
  beforeEach(() => statsReset());

  it('counts the frames of the last second and times input to the next frame', () => {
    for (let t = 10_000; t < 11_000; t += 50) frameArrived(t); // 20 frames/s
    inputSent(11_000);
    inputSent(11_005); // the first input in flight is the one timed
    frameArrived(11_030);
    frameArrived(11_600); // publishes (≥ 500 ms since the last)
    expect(statsStore.getState().fps).toBeGreaterThanOrEqual(10);
    expect(statsStore.getState().latencyMs).toBe(30);
  });

  it('reads 0 frames/s on a fresh or idle connection, and no latency before input', () => {
    expect(statsStore.getState()).toEqual({ fps: 0, latencyMs: null });
    frameArrived(50_000);
    publish(52_000);
    expect(statsStore.getState().fps).toBe(0);
  });
});
