import { describe, expect, it } from 'vitest';
import { FRAME_SILENCE_MS, FrameCadence } from './frameCadence.js';

function framesAt(cadence: FrameCadence, times: number[]): void {
  for (const t of times) cadence.frame(t);
}

describe('FrameCadence', () => {
  it('learns the gateway keep-alive from a run of ~2 s gaps, then calls a long gap silence', () => {
    const cadence = new FrameCadence();
    framesAt(cadence, [1000, 3100, 5300, 7400]);
    expect(cadence.keepAlive).toBe(true);
    expect(cadence.silentForMs(7400 + FRAME_SILENCE_MS)).toBeUndefined();
    expect(cadence.silentForMs(7400 + FRAME_SILENCE_MS + 1)).toBe(FRAME_SILENCE_MS + 1);
    cadence.frame(20_000);
    expect(cadence.silentForMs(20_100)).toBeUndefined();
  });

  it('never calls silence on a connection without keep-alive frames (Apache guacd: a still screen sends none)', () => {
    const cadence = new FrameCadence();
    framesAt(cadence, [1000, 1040, 1080, 9000, 9040, 60_000]);
    expect(cadence.keepAlive).toBe(false);
    expect(cadence.silentForMs(600_000)).toBeUndefined();
  });

  it('a busy screen (short gaps) with a few longer pauses does not look like a keep-alive', () => {
    const cadence = new FrameCadence();
    let t = 0;
    for (let i = 0; i < 200; i++) {
      // Mostly 40 ms frames, a 2 s pause now and then, broken by 700 ms gaps.
      t += i % 20 === 0 ? 2000 : i % 7 === 0 ? 700 : 40;
      cadence.frame(t);
    }
    expect(cadence.keepAlive).toBe(false);
  });

  it('bursts between keep-alives neither build nor break the run', () => {
    const cadence = new FrameCadence();
    framesAt(cadence, [0, 2000, 2040, 2080, 4100, 6200]);
    expect(cadence.keepAlive).toBe(true);
  });
});
