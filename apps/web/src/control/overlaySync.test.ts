// How a window keeps its overlay store in step with the person's other windows
// (overlaySync.ts), through a real ViewerController (testing/controllerHarness.ts): a window
// taking control announces its store and keeps the newer of it and the bridge's copy; a mirror
// asks for a snapshot, follows changes and re-syncs on a gap; the control window answers
// request_sync.
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
});
