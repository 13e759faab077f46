// Overlay tools in the control window (draw_overlay, remove_overlay, clear_overlays,
// batch_overlay), temporary_ms expiry (overlayExpiry.ts), the overlay_* broadcast with sequence
// numbers, the sync_state snapshot, and taking over a store another window kept (adoptStore).
// Overlays the bridge drew itself (overlay_put, accept) join the store the same way.
// Everything but one_at_a_time batches is synchronous, so the answer leaves before the overlay
// layer paints the change (the draw_overlay round trip stays ~1–3 ms). Every change is one store
// update however many overlays it touches (a 10,000-overlay batch, a burst of expiries), and
// one message to the other windows when it touches many (ONE_BY_ONE_MAX).
import {
  ONE_AT_A_TIME_STEP_MS,
  MAX_OVERLAYS,
  ProtocolError,
  placeOverlay,
  restampOverlay,
  type DrawOverlayArgs,
  type Monitor,
  type Overlay,
  type ToolArgs,
  type ToolViewerResult,
  type ViewerToBridge,
} from '@overlay-companion/protocol';
import type { StoreApi } from 'zustand/vanilla';
import {
  cleared,
  overlayData,
  withOverlays,
  withoutOverlays,
  type OverlayData,
  type OverlayState,
} from '../../store/overlays.js';
import { ExpiryTimers } from './overlayExpiry.js';
import { resolveMonitor, type DesktopSize } from '../monitors.js';
import { sleep as realSleep, throwIfCancelled, type Sleep } from '../sleep.js';

export interface OverlayServiceDeps {
  store: StoreApi<OverlayState>;
  /** Sends an overlay_* message to the bridge (which relays it to mirror windows). */
  broadcast: (message: ViewerToBridge) => void;
  /** Desktop size, or undefined before the remote desktop has told us. */
  desktop: () => DesktopSize | undefined;
  monitors: () => readonly Monitor[];
  sleep?: Sleep;
  /** Source of overlay ids; the default is random plus a counter. */
  newId?: () => string;
  /** The clock for created_at / expires_at (epoch ms); Date.now by default. */
  now?: () => number;
}

/**
 * A change touching more overlays than this (a big batch, a burst of expiries) goes to the other
 * windows as one sync_state of the whole store instead of a message per overlay: the bridge
 * closes a viewer that sends more than its burst of messages at once (MESSAGE_LIMIT in
 * apps/bridge/src/relay/viewerSocket.ts, 1,000), and a mirror replaces its store once instead
 * of applying thousands of messages.
 */
export const ONE_BY_ONE_MAX = 100;

function defaultIds(): () => string {
  const prefix = Math.random().toString(36).slice(2, 8);
  let counter = 0;
  return () => `ov_${prefix}_${++counter}`;
}

export class OverlayService {
  readonly #deps: OverlayServiceDeps;
  readonly #expiry: ExpiryTimers;
  readonly #newId: () => string;
  readonly #sleep: Sleep;
  readonly #now: () => number;

  constructor(deps: OverlayServiceDeps) {
    this.#deps = deps;
    this.#newId = deps.newId ?? defaultIds();
    this.#sleep = deps.sleep ?? realSleep;
    this.#now = deps.now ?? Date.now;
    this.#expiry = new ExpiryTimers((ids) => this.#removeAll(ids), this.#now);
  }

  draw(args: ToolArgs<'draw_overlay'>): ToolViewerResult<'draw_overlay'> {
    const [overlay] = this.#drawAll([args]);
    if (overlay === undefined) throw new Error('drawing produced no overlay'); // cannot happen
    return {
      overlay_id: overlay.overlay_id,
      bounds: overlay.bounds,
      monitor_index: overlay.monitor_index,
    };
  }

  /**
   * An overlay the bridge drew for a draw_overlay it answered itself (overlay_put): added as if
   * drawn here — this window's clock for its times (temporary_ms kept), the store's next seq or
   * the bridge's `seq` if that is higher (so a window handed control later sees the newer store),
   * an overlay_created to the bridge and the other windows. With no room (the bridge's copy and
   * this store disagreed) nothing is drawn and overlay_removed says so, so the copies converge.
   */
  accept(drawn: Overlay, seq: number): void {
    const before = overlayData(this.#deps.store);
    const overlay = restampOverlay(drawn, this.#now());
    const added = withOverlays(before, [overlay]);
    const next = Math.max((added ?? before).seq + (added === undefined ? 1 : 0), seq);
    if (added === undefined) {
      this.#commit({ overlays: before.overlays, seq: next });
      this.#deps.broadcast({ type: 'overlay_removed', overlay_id: overlay.overlay_id, seq: next });
      return;
    }
    this.#commit({ overlays: added.overlays, seq: next });
    if (overlay.expires_at === undefined) this.#expiry.forget(overlay.overlay_id);
    else this.#expiry.arm(overlay.overlay_id, overlay.expires_at);
    this.#deps.broadcast({ type: 'overlay_created', overlay, seq: next });
  }

  remove(args: ToolArgs<'remove_overlay'>): ToolViewerResult<'remove_overlay'> {
    const removed = this.#removeAll([args.overlay_id]);
    return removed > 0 ? { removed: true, not_found: false } : { removed: false, not_found: true };
  }

  clear(): ToolViewerResult<'clear_overlays'> {
    const before = overlayData(this.#deps.store);
    const after = cleared(before);
    this.#expiry.forgetAll();
    this.#commit(after);
    this.#deps.broadcast({ type: 'clear_overlays', seq: after.seq });
    return { cleared: before.overlays.length };
  }

  /** all-at-once batches answer synchronously; one_at_a_time ones draw with a short pause. */
  batch(
    args: ToolArgs<'batch_overlay'>,
    signal: AbortSignal,
  ): ToolViewerResult<'batch_overlay'> | Promise<ToolViewerResult<'batch_overlay'>> {
    this.#checkRoom(args.overlays.length);
    if (!args.one_at_a_time) {
      return { overlay_ids: this.#drawAll(args.overlays).map((o) => o.overlay_id) };
    }
    return this.#drawSequentially(args.overlays, signal);
  }

  /** The sync_state answer to request_sync. */
  snapshot(): Extract<ViewerToBridge, { type: 'sync_state' }> {
    const { overlays, seq } = overlayData(this.#deps.store);
    return { type: 'sync_state', seq, overlays: [...overlays] };
  }

  /**
   * This window just became the control window, with a store it kept as a mirror: temporary
   * overlays whose expires_at has passed go now (one store update, an overlay_removed each for
   * the mirrors), the others get their timers back. Call it on every handover to this window.
   */
  adoptStore(): void {
    this.#expiry.forgetAll();
    const now = this.#now();
    const due: string[] = [];
    for (const o of this.#deps.store.getState().overlays) {
      if (o.expires_at === undefined) continue;
      if (o.expires_at <= now) due.push(o.overlay_id);
      else this.#expiry.arm(o.overlay_id, o.expires_at);
    }
    this.#removeAll(due);
  }

  /** Stops every expiry timer (the window stops being the control window, or the page ends). */
  dispose(): void {
    this.#expiry.forgetAll();
  }

  /**
   * A walk-through: each overlay is shown for its temporary_ms (or ONE_AT_A_TIME_STEP_MS), then
   * replaced by the next; the last one stays. Cancelled (Stop), the one on screen stays too.
   */
  async #drawSequentially(
    entries: readonly DrawOverlayArgs[],
    signal: AbortSignal,
  ): Promise<ToolViewerResult<'batch_overlay'>> {
    const ids: string[] = [];
    let shown: { id: string; stepMs: number } | undefined;
    for (const entry of entries) {
      throwIfCancelled(signal);
      if (shown !== undefined) {
        await this.#sleep(shown.stepMs, signal);
        // Gone already when its own temporary_ms ended it: removing again is a no-op.
        this.remove({ overlay_id: shown.id });
      }
      this.#checkRoom(1);
      const [overlay] = this.#drawAll([entry]);
      if (overlay === undefined) continue;
      ids.push(overlay.overlay_id);
      shown = { id: overlay.overlay_id, stepMs: entry.temporary_ms ?? ONE_AT_A_TIME_STEP_MS };
    }
    return { overlay_ids: ids };
  }

  #checkRoom(count: number): void {
    const have = this.#deps.store.getState().overlays.length;
    if (have + count > MAX_OVERLAYS) {
      throw new ProtocolError(
        'invalid_parameters',
        `The viewer holds ${have} overlays and at most ${MAX_OVERLAYS}; ${count} more do not fit. Remove some with remove_overlay or clear_overlays first.`,
      );
    }
  }

  /** Validates, clamps and adds overlays in one store update; broadcasts one message each. */
  #drawAll(entries: readonly DrawOverlayArgs[]): Overlay[] {
    const desktop = this.#deps.desktop();
    if (desktop === undefined) {
      throw new ProtocolError(
        'system_error',
        'The remote desktop size is not known yet (the viewer is still connecting). Wait a moment and call draw_overlay again.',
      );
    }
    const monitors = this.#deps.monitors();
    // Resolve every monitor first so a bad index in entry 7 leaves nothing half-drawn.
    const placed = entries.map((args) => ({
      args,
      monitor: resolveMonitor(monitors, args.monitor_index),
    }));
    this.#checkRoom(entries.length);
    const before = overlayData(this.#deps.store);
    const now = this.#now();
    const overlays = placed.map(({ args, monitor }) =>
      placeOverlay(args, { desktop, monitors, monitor, overlayId: this.#newId(), now }),
    );
    const after = withOverlays(before, overlays);
    if (after === undefined) return []; // #checkRoom ran first; kept as a guard
    this.#commit(after);
    for (const o of overlays)
      if (o.expires_at !== undefined) this.#expiry.arm(o.overlay_id, o.expires_at);
    if (overlays.length > ONE_BY_ONE_MAX) this.#deps.broadcast(this.snapshot());
    else {
      overlays.forEach((overlay, i) =>
        this.#deps.broadcast({ type: 'overlay_created', overlay, seq: before.seq + i + 1 }),
      );
    }
    return overlays;
  }

  /** Removes these overlays in one store update and tells the mirrors; returns how many were there. */
  #removeAll(overlayIds: readonly string[]): number {
    if (overlayIds.length === 0) return 0;
    const before = overlayData(this.#deps.store);
    const { data, removed } = withoutOverlays(before, overlayIds);
    for (const id of overlayIds) this.#expiry.forget(id);
    if (removed.length === 0) return 0;
    this.#commit(data);
    if (removed.length > ONE_BY_ONE_MAX) this.#deps.broadcast(this.snapshot());
    else {
      removed.forEach((overlay_id, i) =>
        this.#deps.broadcast({ type: 'overlay_removed', overlay_id, seq: before.seq + i + 1 }),
      );
    }
    return removed.length;
  }

  #commit(data: OverlayData): void {
    this.#deps.store.getState().replaced(data);
  }
}
