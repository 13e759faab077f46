// OverlayService: clamping to the desktop, monitor-relative placement, broadcasts with the
// store's sequence numbers, temporary_ms expiry, batches (atomic validation, one_at_a_time
// pacing and cancellation), capacity errors, the sync_state snapshot, 10,000-overlay batches and
// expiry bursts as one store update each, and a new control window adopting a mirror's store.
import {
  MAX_OVERLAYS,
  ProtocolError,
  parseToolArgs,
  type ToolArgs,
  type ViewerToBridge,
} from '@overlay-companion/protocol';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createOverlayStore } from '../../store/overlays.js';
import { currentMonitors } from '../monitors.js';
import { ONE_AT_A_TIME_STEP_MS } from '@overlay-companion/protocol';
import { ONE_BY_ONE_MAX, OverlayService } from './overlay.js';

function args<N extends 'draw_overlay' | 'batch_overlay'>(name: N, raw: unknown): ToolArgs<N> {
  const parsed = parseToolArgs(name, raw);
  if (!parsed.ok) throw new Error(parsed.error);
  return parsed.value;
}

const T0 = 1_700_000_000_000;

function setup(known = true, clock = { now: T0 }) {
  const desktop = known ? { width: 1280, height: 800 } : undefined;
  const store = createOverlayStore();
  const sent: ViewerToBridge[] = [];
  let n = 0;
  const service = new OverlayService({
    store,
    broadcast: (m) => sent.push(m),
    desktop: () => desktop,
    monitors: () => currentMonitors(desktop ?? { width: 1, height: 1 }, 1),
    newId: () => `ov_${++n}`,
    now: () => clock.now,
  });
  return { store, sent, service };
}

describe('OverlayService', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it('draws, clamps to the desktop and broadcasts overlay_created with the seq', () => {
    const { store, sent, service } = setup();
    const result = service.draw(
      args('draw_overlay', {
        x: 1200,
        y: 700,
        width: 200,
        height: 200,
        color: 'gold',
        label: 'here',
      }),
    );
    expect(result).toEqual({
      overlay_id: 'ov_1',
      bounds: { x: 1200, y: 700, width: 80, height: 100 },
      monitor_index: 0,
    });
    expect(store.getState().seq).toBe(1);
    expect(sent).toEqual([
      {
        type: 'overlay_created',
        seq: 1,
        overlay: {
          overlay_id: 'ov_1',
          bounds: { x: 1200, y: 700, width: 80, height: 100 },
          color: 'gold',
          opacity: 0.5,
          label: 'here',
          click_through: true,
          monitor_index: 0,
          created_at: 1_700_000_000_000,
        },
      },
    ]);
  });

  it('reports an empty rectangle for an overlay entirely off the desktop', () => {
    const { service } = setup();
    const r = service.draw(
      args('draw_overlay', { x: 2000, y: 10, width: 5, height: 5, color: 'red' }),
    );
    expect(r.bounds).toEqual({ x: 1280, y: 10, width: 0, height: 5 });
  });

  it('places monitor-relative overlays and rejects unknown monitors', () => {
    const { service, store } = setup();
    const r = service.draw(
      args('draw_overlay', { x: 5, y: 6, width: 7, height: 8, color: 'red', monitor_index: 0 }),
    );
    expect(r.monitor_index).toBe(0);
    expect(() =>
      service.draw(
        args('draw_overlay', { x: 5, y: 6, width: 7, height: 8, color: 'red', monitor_index: 3 }),
      ),
    ).toThrow(/no monitor 3/);
    expect(store.getState().overlays).toHaveLength(1);
  });

  it('refuses to draw before the desktop size is known', () => {
    const { service } = setup(false);
    expect(() =>
      service.draw(args('draw_overlay', { x: 0, y: 0, width: 1, height: 1, color: 'red' })),
    ).toThrow(ProtocolError);
  });

  it('removes, reports not_found, clears with counts, each with the next seq', () => {
    const { service, sent } = setup();
    const { overlay_id } = service.draw(
      args('draw_overlay', { x: 0, y: 0, width: 1, height: 1, color: 'red' }),
    );
    service.draw(args('draw_overlay', { x: 0, y: 0, width: 1, height: 1, color: 'red' }));
    expect(service.remove({ overlay_id })).toEqual({ removed: true, not_found: false });
    expect(service.remove({ overlay_id })).toEqual({ removed: false, not_found: true });
    expect(service.clear()).toEqual({ cleared: 1 });
    expect(sent.map((m) => [m.type, 'seq' in m ? m.seq : -1])).toEqual([
      ['overlay_created', 1],
      ['overlay_created', 2],
      ['overlay_removed', 3],
      ['clear_overlays', 4],
    ]);
    expect(service.snapshot()).toEqual({ type: 'sync_state', seq: 4, overlays: [] });
  });

  it('expires temporary overlays and tells the mirrors', async () => {
    const { service, sent, store } = setup();
    service.draw(
      args('draw_overlay', { x: 0, y: 0, width: 1, height: 1, color: 'red', temporary_ms: 500 }),
    );
    await vi.advanceTimersByTimeAsync(499);
    expect(store.getState().overlays).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(1);
    expect(store.getState().overlays).toHaveLength(0);
    expect(sent.at(-1)).toEqual({ type: 'overlay_removed', overlay_id: 'ov_1', seq: 2 });
  });

  it('does not fire an expiry for an overlay that was already cleared', async () => {
    const { service, sent } = setup();
    service.draw(
      args('draw_overlay', { x: 0, y: 0, width: 1, height: 1, color: 'red', temporary_ms: 100 }),
    );
    service.clear();
    await vi.advanceTimersByTimeAsync(200);
    expect(sent.map((m) => m.type)).toEqual(['overlay_created', 'clear_overlays']);
  });

  it('draws an all-at-once batch in one store update and validates it first', () => {
    const { service, store } = setup();
    const updates: number[] = [];
    store.subscribe((s) => updates.push(s.overlays.length));
    const box = { x: 0, y: 0, width: 1, height: 1, color: 'red' };
    const result = service.batch(
      args('batch_overlay', { overlays: [box, box, box] }),
      new AbortController().signal,
    );
    expect(result).toEqual({ overlay_ids: ['ov_1', 'ov_2', 'ov_3'] });
    expect(updates).toEqual([3]);
    expect(() =>
      service.batch(
        args('batch_overlay', { overlays: [box, { ...box, monitor_index: 9 }] }),
        new AbortController().signal,
      ),
    ).toThrow(/monitor 9/);
    expect(store.getState().overlays).toHaveLength(3);
  });

  it('shows one_at_a_time overlays one after another, each replacing the last, and the last stays', async () => {
    const { service, store } = setup();
    const box = (label: string, temporary_ms?: number) => ({
      x: 0,
      y: 0,
      width: 1,
      height: 1,
      color: 'red',
      label,
      ...(temporary_ms === undefined ? {} : { temporary_ms }),
    });
    const labels = () => store.getState().overlays.map((o) => o.label);
    const done = service.batch(
      args('batch_overlay', {
        overlays: [box('one'), box('two', 400), box('three')],
        one_at_a_time: true,
      }),
      new AbortController().signal,
    );
    expect(done).toBeInstanceOf(Promise);
    expect(labels()).toEqual(['one']);
    await vi.advanceTimersByTimeAsync(ONE_AT_A_TIME_STEP_MS);
    expect(labels()).toEqual(['two']);
    await vi.advanceTimersByTimeAsync(400); // its own temporary_ms is its step
    expect(labels()).toEqual(['three']);
    await expect(done).resolves.toMatchObject({ overlay_ids: expect.any(Array) as unknown });
    expect((await done).overlay_ids).toHaveLength(3);
  });

  it('stops a one_at_a_time walk-through when cancelled, leaving the one on screen', async () => {
    const { service, store } = setup();
    const box = { x: 0, y: 0, width: 1, height: 1, color: 'red' };
    const controller = new AbortController();
    const done = service.batch(
      args('batch_overlay', { overlays: [box, box, box], one_at_a_time: true }),
      controller.signal,
    );
    await vi.advanceTimersByTimeAsync(ONE_AT_A_TIME_STEP_MS);
    expect(store.getState().overlays).toHaveLength(1);
    controller.abort();
    await expect(done).rejects.toMatchObject({ kind: 'cancelled' });
    expect(store.getState().overlays).toHaveLength(1);
  });

  it('refuses overlays beyond the store capacity with a way out', () => {
    const { service } = setup();
    const box = { x: 0, y: 0, width: 1, height: 1, color: 'red' };
    for (let i = 0; i < MAX_OVERLAYS / 100; i++) {
      // all-at-once batches answer synchronously (no promise to await)
      void service.batch(
        args('batch_overlay', { overlays: Array(100).fill(box) }),
        new AbortController().signal,
      );
    }
    expect(() => service.draw(args('draw_overlay', box))).toThrow(/clear_overlays/);
  });

  it('draws a 10,000-overlay batch as one store update, announced as one sync_state', () => {
    const { service, store, sent } = setup();
    const updates: number[] = [];
    store.subscribe((s) => updates.push(s.overlays.length));
    const box = { x: 1, y: 2, width: 3, height: 4 };
    const result = service.batch(
      args('batch_overlay', { overlays: Array(MAX_OVERLAYS).fill(box) }),
      new AbortController().signal,
    );
    expect('overlay_ids' in result && result.overlay_ids).toHaveLength(MAX_OVERLAYS);
    expect(updates).toEqual([MAX_OVERLAYS]);
    expect(sent).toHaveLength(1);
    expect(sent[0]).toMatchObject({ type: 'sync_state', seq: MAX_OVERLAYS });
    expect(sent[0]?.type === 'sync_state' && sent[0].overlays).toHaveLength(MAX_OVERLAYS);
    expect(service.snapshot()).toEqual(sent[0]);
    expect(service.clear()).toEqual({ cleared: MAX_OVERLAYS });
  });

  it('announces a batch of up to ONE_BY_ONE_MAX overlay by overlay, with consecutive seqs', () => {
    const { service, sent } = setup();
    const box = { x: 1, y: 2, width: 3, height: 4 };
    void service.batch(
      args('batch_overlay', { overlays: Array(ONE_BY_ONE_MAX).fill(box) }),
      new AbortController().signal,
    );
    expect(sent.map((m) => [m.type, 'seq' in m ? m.seq : 0])).toEqual(
      Array.from({ length: ONE_BY_ONE_MAX }, (_, i) => ['overlay_created', i + 1]),
    );
  });

  it('expires a batch of temporary overlays in one store update, announced as one sync_state', async () => {
    const { service, store, sent } = setup();
    const box = { x: 0, y: 0, width: 1, height: 1, temporary_ms: 1_000 };
    void service.batch(
      args('batch_overlay', { overlays: Array(1_000).fill(box) }),
      new AbortController().signal,
    );
    service.draw(args('draw_overlay', { x: 5, y: 5, width: 1, height: 1 }));
    const updates: number[] = [];
    store.subscribe((s) => updates.push(s.overlays.length));
    sent.length = 0;
    await vi.advanceTimersByTimeAsync(1_000);
    expect(updates).toEqual([1]);
    expect(sent).toEqual([service.snapshot()]);
    expect(service.snapshot()).toMatchObject({ seq: 2_001, overlays: [{ overlay_id: 'ov_1001' }] });
  });

  it('expires a few temporary overlays together, telling the mirrors of each', async () => {
    const { service, sent } = setup();
    const box = { x: 0, y: 0, width: 1, height: 1, temporary_ms: 500 };
    void service.batch(
      args('batch_overlay', { overlays: [box, box, box] }),
      new AbortController().signal,
    );
    sent.length = 0;
    await vi.advanceTimersByTimeAsync(500);
    expect(sent).toEqual([
      { type: 'overlay_removed', overlay_id: 'ov_1', seq: 4 },
      { type: 'overlay_removed', overlay_id: 'ov_2', seq: 5 },
      { type: 'overlay_removed', overlay_id: 'ov_3', seq: 6 },
    ]);
  });

  it('a temporary overlay removed by hand is not removed again when its time comes', async () => {
    const { service, sent } = setup();
    const a = service.draw(
      args('draw_overlay', { x: 0, y: 0, width: 1, height: 1, temporary_ms: 300 }),
    );
    service.draw(args('draw_overlay', { x: 0, y: 0, width: 1, height: 1, temporary_ms: 300 }));
    service.remove({ overlay_id: a.overlay_id });
    await vi.advanceTimersByTimeAsync(300);
    const ids = sent.map((m) =>
      m.type === 'overlay_created' ? m.overlay.overlay_id : 'overlay_id' in m ? m.overlay_id : '',
    );
    expect(sent.map((m, i) => [m.type, ids[i]])).toEqual([
      ['overlay_created', 'ov_1'],
      ['overlay_created', 'ov_2'],
      ['overlay_removed', 'ov_1'],
      ['overlay_removed', 'ov_2'],
    ]);
  });

  it('adopting a store kept as a mirror drops what expired meanwhile and re-arms the rest', async () => {
    const clock = { now: T0 };
    const { service, store, sent } = setup(true, clock);
    const kept = (id: string, expires_at?: number) => ({
      overlay_id: id,
      bounds: { x: 0, y: 0, width: 1, height: 1 },
      color: 'red',
      opacity: 0.5,
      click_through: true,
      monitor_index: 0,
      created_at: T0 - 5_000,
      ...(expires_at === undefined ? {} : { expires_at }),
    });
    // What sync_state gave this window while it was a mirror.
    store.getState().replaced({
      seq: 40,
      overlays: [kept('gone', T0 - 1), kept('stays'), kept('soon', T0 + 700), kept('now', T0)],
    });
    service.adoptStore();
    expect(store.getState().overlays.map((o) => o.overlay_id)).toEqual(['stays', 'soon']);
    expect(sent).toEqual([
      { type: 'overlay_removed', overlay_id: 'gone', seq: 41 },
      { type: 'overlay_removed', overlay_id: 'now', seq: 42 },
    ]);
    await vi.advanceTimersByTimeAsync(699);
    expect(store.getState().overlays).toHaveLength(2);
    await vi.advanceTimersByTimeAsync(1);
    expect(store.getState().overlays.map((o) => o.overlay_id)).toEqual(['stays']);
    expect(sent.at(-1)).toEqual({ type: 'overlay_removed', overlay_id: 'soon', seq: 43 });
    // Handed back to mirror and then to control again: no timer fires twice.
    service.dispose();
    service.adoptStore();
    await vi.advanceTimersByTimeAsync(10_000);
    expect(sent).toHaveLength(3);
  });
});
