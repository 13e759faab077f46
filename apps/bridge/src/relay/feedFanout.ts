// One desktop's /ws/overlays subscribers and the overlay relay they follow. Each change is
// encoded once — UTF-8 bytes after JSON escaping, the size FEED_MAX_SYNC_BYTES is checked
// against — and the same bytes go to every subscriber, so subscribers that have not read a sync
// yet share one copy of it instead of holding one each; the current sync is encoded once per
// change, not once per connect or request_sync.
import { toFeedOverlay, type FeedMessage } from '@overlay-companion/protocol';
import type { OverlayChange, OverlayRelay } from './overlayRelay.js';

/** What the feed reads of a relay (ViewerHub.overlayFeed). */
export type FeedSource = Pick<OverlayRelay, 'subscribe' | 'syncMessage'>;

/** A feed message ready for the wire; `bytes` is shared, never to be written to. */
export interface EncodedFeedMessage {
  type: FeedMessage['type'];
  bytes: Buffer;
}

export type FeedDelivery = (message: EncodedFeedMessage) => void;

export function encodeFeedMessage(message: FeedMessage): EncodedFeedMessage {
  return { type: message.type, bytes: Buffer.from(JSON.stringify(message), 'utf8') };
}

function feedMessage(change: OverlayChange): FeedMessage {
  switch (change.type) {
    case 'overlay_created':
      return { type: 'overlay_created', overlay: toFeedOverlay(change.overlay), seq: change.seq };
    case 'overlay_removed':
      return { type: 'overlay_removed', overlay_id: change.overlay_id, seq: change.seq };
    case 'clear_overlays':
      return { type: 'clear_overlays', seq: change.seq };
    case 'sync_state':
      return { type: 'sync_state', seq: change.seq, overlays: change.overlays.map(toFeedOverlay) };
  }
}

export class FeedFanout {
  private readonly deliveries = new Set<FeedDelivery>();
  private unsubscribe: (() => void) | undefined;
  /** The encoded sync of the store as it is; valid only while following the source. */
  private sync: EncodedFeedMessage | undefined;

  constructor(private readonly source: FeedSource) {}

  /** Follows the source while anyone is subscribed; returns the unsubscribe. */
  subscribe(deliver: FeedDelivery): () => void {
    if (this.unsubscribe === undefined) {
      this.unsubscribe = this.source.subscribe((change) => this.changed(change));
    }
    this.deliveries.add(deliver);
    return () => {
      this.deliveries.delete(deliver);
      if (this.deliveries.size > 0) return;
      this.unsubscribe?.();
      this.unsubscribe = undefined;
      this.sync = undefined;
    };
  }

  get size(): number {
    return this.deliveries.size;
  }

  /** The whole store as a sync_state, encoded at most once per change while followed. */
  currentSync(): EncodedFeedMessage {
    const sync = this.sync ?? encodeFeedMessage(feedMessage(this.source.syncMessage()));
    // Unfollowed, a change would not clear the cache: keep nothing then.
    if (this.unsubscribe !== undefined) this.sync = sync;
    return sync;
  }

  private changed(change: OverlayChange): void {
    const encoded = encodeFeedMessage(feedMessage(change));
    // A sync_state change is the whole new store: the next connect gets these same bytes.
    this.sync = change.type === 'sync_state' ? encoded : undefined;
    for (const deliver of [...this.deliveries]) deliver(encoded);
  }
}
