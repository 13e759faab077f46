// The link watch's timing, on a clock the test moves: a busy desktop that stops is probed after
// the quiet time, a still one every probe interval, input that nothing answers brings the probe
// forward; only a silent probe with nothing heard meanwhile is a stall, reported once.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { ProbeOutcome } from './linkProbe.js';
import { LinkWatch, VOUCH_DRAWING_AFTER_MS } from './linkWatch.js';

beforeEach(() => {
  vi.useFakeTimers();
});

afterEach(() => {
  vi.useRealTimers();
});

function watch(answer: () => ProbeOutcome | Promise<ProbeOutcome>) {
  const probes: number[] = [];
  const stalls: number[] = [];
  const link = new LinkWatch({
    probe: () => {
      probes.push(Date.now());
      return Promise.resolve(answer());
    },
    stalled: (quietFor) => stalls.push(quietFor),
    quietMs: 2_000,
    probeEveryMs: 5_000,
    probeTimeoutMs: 4_000,
  });
  // The desktop drew once (the watch knocks only after that).
  link.heard();
  return { link, probes, stalls };
}

describe('LinkWatch', () => {
  it('does not probe before the desktop first drew (an RDP login takes its time)', async () => {
    const probes: number[] = [];
    const link = new LinkWatch({
      probe: () => {
        probes.push(Date.now());
        return Promise.resolve('silent');
      },
      stalled: () => undefined,
    });
    await vi.advanceTimersByTimeAsync(60_000);
    expect(probes).toEqual([]);
    link.heard();
    await vi.advanceTimersByTimeAsync(2_100);
    expect(probes).toHaveLength(1);
    link.stop();
  });

  it('does not probe while the desktop keeps talking', async () => {
    const { link, probes } = watch(() => 'answered');
    for (let i = 0; i < 20; i += 1) {
      await vi.advanceTimersByTimeAsync(500);
      link.heard();
    }
    expect(probes).toEqual([]);
    link.stop();
  });

  it('probes after the quiet time, then every interval while the desktop is still', async () => {
    const start = Date.now();
    const { link, probes, stalls } = watch(() => 'answered');
    await vi.advanceTimersByTimeAsync(12_100);
    expect(probes.map((t) => t - start)).toEqual([2_000, 7_000, 12_000]);
    expect(stalls).toEqual([]);
    link.stop();
  });

  it('brings the probe forward when input goes unanswered', async () => {
    const start = Date.now();
    const { link, probes } = watch(() => 'answered');
    await vi.advanceTimersByTimeAsync(2_100); // first probe at 2 s
    await vi.advanceTimersByTimeAsync(900);
    link.inputSent(); // at 3 s; the next regular probe would be at 7 s
    await vi.advanceTimersByTimeAsync(2_000);
    expect(probes.map((t) => t - start)).toEqual([2_000, 4_000]);
    link.stop();
  });

  it('reports a silent probe as a stall once, with how long nothing came', async () => {
    const { link, stalls, probes } = watch(() => 'silent');
    await vi.advanceTimersByTimeAsync(2_100);
    expect(stalls).toEqual([2_000]);
    await vi.advanceTimersByTimeAsync(20_000);
    expect(stalls).toHaveLength(1);
    expect(probes).toHaveLength(1);
    link.stop();
  });

  it('is no stall when the desktop spoke while the probe waited', async () => {
    let answer: (outcome: ProbeOutcome) => void = () => undefined;
    const { link, stalls } = watch(() => new Promise((resolve) => (answer = resolve)));
    await vi.advanceTimersByTimeAsync(2_100);
    link.heard();
    answer('silent');
    await vi.advanceTimersByTimeAsync(100);
    expect(stalls).toEqual([]);
    link.stop();
  });

  it('is no stall when the probe itself fails', async () => {
    const { link, stalls } = watch(() => Promise.reject(new Error('EMFILE')));
    await vi.advanceTimersByTimeAsync(8_000);
    expect(stalls).toEqual([]);
    link.stop();
  });
});

describe('LinkWatch.vouch (input receipts)', () => {
  it('does not vouch on drawing heard soon after the input (guacd relays old frames late): it probes', async () => {
    let answer: (outcome: ProbeOutcome) => void = () => undefined;
    const { link, probes, stalls } = watch(
      () => new Promise<ProbeOutcome>((resolve) => (answer = resolve)),
    );
    let settled: boolean | undefined;
    void link.vouch().then((alive) => (settled = alive));
    // Frames keep coming for a while after the input: the stalled link's backlog through guacd.
    for (let i = 0; i < 9; i++) {
      await vi.advanceTimersByTimeAsync(100);
      link.heard();
    }
    expect(settled).toBeUndefined();
    expect(probes).toHaveLength(1);
    answer('silent');
    await vi.advanceTimersByTimeAsync(1);
    // The backlog was heard after the probe began, so this is no stall yet; but no vouch either.
    expect(stalls).toEqual([]);
    expect(settled).toBeUndefined();
    link.stop();
    await vi.advanceTimersByTimeAsync(1);
    expect(settled).toBe(false);
  });

  it('vouches on drawing heard VOUCH_DRAWING_AFTER_MS after the input', async () => {
    const { link } = watch(() => new Promise<ProbeOutcome>(() => undefined));
    let settled: boolean | undefined;
    void link.vouch().then((alive) => (settled = alive));
    await vi.advanceTimersByTimeAsync(VOUCH_DRAWING_AFTER_MS - 1);
    link.heard();
    await vi.advanceTimersByTimeAsync(0);
    expect(settled).toBeUndefined();
    await vi.advanceTimersByTimeAsync(1);
    link.heard();
    await vi.advanceTimersByTimeAsync(0);
    expect(settled).toBe(true);
    link.stop();
  });

  it('probes the server at once for a receipt, and vouches on its answer', async () => {
    const { link, probes } = watch(() => 'answered');
    const alive = link.vouch();
    await vi.advanceTimersByTimeAsync(1);
    expect(probes).toHaveLength(1);
    expect(await alive).toBe(true);
    link.stop();
  });

  it('receipts asked in one turn share a probe; one asked during it gets the next', async () => {
    let answer: (outcome: ProbeOutcome) => void = () => undefined;
    const { link, probes } = watch(
      () => new Promise<ProbeOutcome>((resolve) => (answer = resolve)),
    );
    const first = [link.vouch(), link.vouch(), link.vouch()];
    await vi.advanceTimersByTimeAsync(1);
    expect(probes).toHaveLength(1);
    const late = link.vouch();
    answer('answered');
    expect(await Promise.all(first)).toEqual([true, true, true]);
    await vi.advanceTimersByTimeAsync(1);
    expect(probes).toHaveLength(2);
    answer('answered');
    expect(await late).toBe(true);
    link.stop();
  });

  it('never vouches on a silent probe: the link is stalled and the receipt is false', async () => {
    let answer: (outcome: ProbeOutcome) => void = () => undefined;
    const { link, stalls } = watch(
      () => new Promise<ProbeOutcome>((resolve) => (answer = resolve)),
    );
    let settled: boolean | undefined;
    await vi.advanceTimersByTimeAsync(10); // the input comes after the desktop last drew
    void link.vouch().then((alive) => (settled = alive));
    await vi.advanceTimersByTimeAsync(1);
    expect(settled).toBeUndefined();
    answer('silent');
    await vi.advanceTimersByTimeAsync(1);
    expect(settled).toBe(false);
    expect(stalls).toHaveLength(1);
  });

  it('answers false to receipts still waiting when the watch stops', async () => {
    const { link } = watch(() => new Promise<ProbeOutcome>(() => undefined));
    const alive = link.vouch();
    link.stop();
    expect(await alive).toBe(false);
    expect(await link.vouch()).toBe(false);
  });
});
