// How a window keeps its overlay store in step with the person's other windows
// (overlaySync.ts), through a real ViewerController (testing/controllerHarness.ts): a window
// taking control announces its store and keeps the newer of it and the bridge's copy; a mirror
// asks for a snapshot, follows changes and re-syncs on a gap; the control window answers
// request_sync. An overlay the bridge drew (overlay_put) joins the control window's store like its
// own — announced, in order with later calls, expiring on this window's clock — and a window
// with no room for it says so (overlay_removed) so the copies converge; a mirror ignores it.
import { MAX_OVERLAYS } from '@overlay-companion/protocol';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { call, hello, msg, setup } from './testing/controllerHarness.js';

describe('overlay store sync between windows', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it('taking control: announces its store, and keeps the newer of it and the bridge copy', () => {
    const { controller, sent, overlayStore } = setup();
    controller.handle(hello('control'));
    expect(sent).toEqual([{ type: 'sync_state', seq: 0, overlays: [] }]);
    controller.handle(
      call('c20', 'draw_overlay', { x: 0, y: 0, width: 5, height: 5, color: 'red' }),
    );
    const mine = overlayStore.getState().overlays;
    // An older copy from the bridge changes nothing.
    controller.handle(msg({ type: 'sync_state', seq: 0, overlays: [] }));
    expect(overlayStore.getState().overlays).toBe(mine);
    // A newer one (this window missed changes) is taken over.
    const kept = { ...mine[0]!, overlay_id: 'ov_kept', expires_at: Date.now() + 60_000 };
    controller.handle(msg({ type: 'sync_state', seq: 9, overlays: [kept] }));
    expect(overlayStore.getState()).toMatchObject({ seq: 9, overlays: [kept] });
    // ...and its timers re-armed: the temporary overlay goes when due, broadcast as removed.
    vi.advanceTimersByTime(60_001);
    expect(sent.at(-1)).toEqual({ type: 'overlay_removed', overlay_id: 'ov_kept', seq: 10 });
  });

  it('as a mirror: asks for a snapshot, follows changes, re-syncs on a gap, refuses calls', () => {
    const { controller, sent, overlayStore } = setup();
    controller.handle(hello('mirror'));
    expect(sent).toEqual([{ type: 'request_sync' }]);
    const overlay = {
      overlay_id: 'a',
      bounds: { x: 0, y: 0, width: 5, height: 5 },
      color: 'red',
      opacity: 1,
      click_through: true,
      monitor_index: 0,
      created_at: 1_700_000_000_000,
    };
    controller.handle(msg({ type: 'sync_state', seq: 4, overlays: [overlay] }));
    controller.handle(msg({ type: 'overlay_removed', overlay_id: 'a', seq: 5 }));
    expect(overlayStore.getState()).toMatchObject({ seq: 5, overlays: [] });
    controller.handle(msg({ type: 'clear_overlays', seq: 9 }));
    expect(sent.at(-1)).toEqual({ type: 'request_sync' });
    controller.handle(
      call('c12', 'draw_overlay', { x: 0, y: 0, width: 1, height: 1, color: 'red' }),
    );
    expect(sent.at(-1)).toMatchObject({ type: 'tool_error', id: 'c12', kind: 'system_error' });
  });

  it('as the control window: answers request_sync with the store', () => {
    const { controller, sent } = setup();
    controller.handle(hello('control'));
    controller.handle(
      call('c13', 'draw_overlay', { x: 0, y: 0, width: 1, height: 1, color: 'red' }),
    );
    controller.handle(msg({ type: 'request_sync' }));
    expect(sent.at(-1)).toMatchObject({
      type: 'sync_state',
      seq: 1,
      overlays: [{ overlay_id: 'ov_1' }],
    });
  });

  const BRIDGE_DRAWN = {
    overlay_id: 'ovb_0a1b2c3d_1',
    bounds: { x: 10, y: 20, width: 30, height: 40 },
    color: 'red',
    opacity: 0.5,
    click_through: true,
    monitor_index: 0,
    // The bridge's clock, far behind this window's: the window keeps the 2 s it was given.
    created_at: 1_000,
    expires_at: 3_000,
  };

  it("overlay_put: the control window adds the bridge's overlay, announces it, expires it on time", () => {
    const { controller, sent, overlayStore } = setup();
    controller.handle(hello('control'));
    const now = 1_700_000_000_000; // the harness's overlay clock
    controller.handle(msg({ type: 'overlay_put', overlay: BRIDGE_DRAWN, seq: 1 }));
    const stored = { ...BRIDGE_DRAWN, created_at: now, expires_at: now + 2_000 };
    expect(overlayStore.getState()).toMatchObject({ seq: 1, overlays: [stored] });
    expect(sent.at(-1)).toEqual({ type: 'overlay_created', overlay: stored, seq: 1 });
    // A remove_overlay right behind it finds it (same socket, same order).
    controller.handle(call('c30', 'remove_overlay', { overlay_id: BRIDGE_DRAWN.overlay_id }));
    expect(sent.at(-2)).toEqual({
      type: 'overlay_removed',
      overlay_id: BRIDGE_DRAWN.overlay_id,
      seq: 2,
    });
    expect(sent.at(-1)).toMatchObject({
      type: 'tool_result',
      id: 'c30',
      result: { removed: true },
    });
    // Drawn again (handed to a new control window twice, say) and left to expire: gone at 2 s.
    controller.handle(msg({ type: 'overlay_put', overlay: BRIDGE_DRAWN, seq: 3 }));
    vi.advanceTimersByTime(1_999);
    expect(overlayStore.getState().overlays).toHaveLength(1);
    vi.advanceTimersByTime(1);
    expect(overlayStore.getState().overlays).toEqual([]);
    expect(sent.at(-1)).toEqual({
      type: 'overlay_removed',
      overlay_id: BRIDGE_DRAWN.overlay_id,
      seq: 4,
    });
  });

  it("overlay_put: the window's seq follows the bridge's when that is higher, and never goes back", () => {
    const { controller, sent, overlayStore } = setup();
    controller.handle(hello('control'));
    controller.handle(msg({ type: 'overlay_put', overlay: BRIDGE_DRAWN, seq: 7 }));
    expect(overlayStore.getState().seq).toBe(7);
    expect(sent.at(-1)).toMatchObject({ type: 'overlay_created', seq: 7 });
    // The window moved on meanwhile (its own draw): a put under an older seq takes the next one.
    controller.handle(call('c31', 'draw_overlay', { x: 0, y: 0, width: 5, height: 5 }));
    controller.handle(
      msg({ type: 'overlay_put', overlay: { ...BRIDGE_DRAWN, overlay_id: 'ovb_x_2' }, seq: 8 }),
    );
    expect(overlayStore.getState().seq).toBe(9);
    expect(sent.at(-1)).toMatchObject({ type: 'overlay_created', seq: 9 });
  });

  it('overlay_put with no room: nothing drawn, overlay_removed so the bridge drops it too', () => {
    const { controller, sent, overlayStore } = setup();
    controller.handle(hello('control'));
    const full = Array.from({ length: MAX_OVERLAYS }, (_, i) => ({
      ...BRIDGE_DRAWN,
      overlay_id: `ov_full_${i}`,
      expires_at: undefined,
    }));
    overlayStore.getState().replaced({ overlays: full, seq: 3 });
    controller.handle(msg({ type: 'overlay_put', overlay: BRIDGE_DRAWN, seq: 4 }));
    expect(overlayStore.getState().overlays).toHaveLength(MAX_OVERLAYS);
    expect(
      overlayStore.getState().overlays.some((o) => o.overlay_id === BRIDGE_DRAWN.overlay_id),
    ).toBe(false);
    expect(overlayStore.getState().seq).toBe(4);
    expect(sent.at(-1)).toEqual({
      type: 'overlay_removed',
      overlay_id: BRIDGE_DRAWN.overlay_id,
      seq: 4,
    });
  });

  it('overlay_put reaching a mirror changes nothing (the bridge hands it to the new control window)', () => {
    const { controller, sent, overlayStore } = setup();
    controller.handle(hello('mirror'));
    const before = sent.length;
    controller.handle(msg({ type: 'overlay_put', overlay: BRIDGE_DRAWN, seq: 1 }));
    expect(overlayStore.getState()).toMatchObject({ seq: 0, overlays: [] });
    expect(sent).toHaveLength(before);
  });

  it('a mirror with a Burst applies a burst of changes in one store update, before what follows', () => {
    let later: (() => void) | undefined;
    const burst = { later: (apply: () => void) => void (later = apply), gathered: [] };
    const { controller, sent, overlayStore } = setup({ overlayBurst: burst });
    controller.handle(hello('mirror'));
    const drawn = (id: string) => ({ ...BRIDGE_DRAWN, overlay_id: id, expires_at: undefined });
    controller.handle(msg({ type: 'sync_state', seq: 2, overlays: [drawn('a')] }));
    let updates = 0;
    const stop = overlayStore.subscribe(() => updates++);
    for (let i = 0; i < 20; i++)
      controller.handle(msg({ type: 'overlay_created', overlay: drawn(`b${i}`), seq: 3 + i }));
    controller.handle(msg({ type: 'overlay_removed', overlay_id: 'a', seq: 23 }));
    // Nothing yet: the burst waits for the messages queued behind it.
    expect(overlayStore.getState().seq).toBe(2);
    later?.();
    expect(updates).toBe(1);
    expect(overlayStore.getState().seq).toBe(23);
    expect(overlayStore.getState().overlays.map((o) => o.overlay_id)).toEqual(
      Array.from({ length: 20 }, (_, i) => `b${i}`),
    );
    // A change gathered before a snapshot is applied before it (the snapshot then wins)…
    controller.handle(msg({ type: 'overlay_removed', overlay_id: 'b0', seq: 24 }));
    controller.handle(msg({ type: 'sync_state', seq: 30, overlays: [drawn('z')] }));
    const shown = () => overlayStore.getState().overlays.map((o) => o.overlay_id);
    expect(overlayStore.getState().seq).toBe(30);
    expect(shown()).toEqual(['z']);
    later?.(); // …and is not applied again
    expect(overlayStore.getState().seq).toBe(30);
    expect(shown()).toEqual(['z']);
    // A gap in a burst asks for a snapshot once.
    const asked = sent.length;
    controller.handle(msg({ type: 'overlay_removed', overlay_id: 'z', seq: 32 }));
    controller.handle(msg({ type: 'overlay_removed', overlay_id: 'z', seq: 33 }));
    later?.();
    expect(sent.slice(asked)).toEqual([{ type: 'request_sync' }]);
    stop();
  });
});
