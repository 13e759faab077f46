// The seed's /ws/overlays: a read-only feed of one desktop's overlays (overlayFeed.ts in the
// protocol) for other programs — a stream overlay, a second app. Who may open it:
// - a signed-in page, with a single-use `overlays` ticket (POST /api/tickets), like /ws/viewer;
// - a program with one of the person's API tokens as `Authorization: Bearer …` (a browser page
//   cannot put that header on a WebSocket, so Origin is not required with it; the upgrade guard
//   still refuses a foreign Origin when one is sent).
// (Both are checked in perimeter/socketTickets.ts claimFeedCredential.) Either way it sees only the overlays of a desktop the person may see (the ticket's desktop, or
// the person's — for a token, the token's — default desktop). It gets sync_state on connect and then every
// change; the only thing it may send is request_sync. Anything else is answered with an error
// and changes nothing; a flood closes the socket, and so does not reading what it is sent.
// What one subscriber, token and person may hold is bounded (limits/feedLimits.ts): too many feeds are
// closed with 4429, a sync_state over the limit (the first one too) with 4413.
// Signing out, disabling the person or revoking the token closes it (SocketRegistry).
import { FeedRequest, MAX_ERROR_MESSAGE_LENGTH } from '@overlay-companion/protocol';
import type { Logger } from 'pino';
import { WebSocketServer, type RawData, type WebSocket } from 'ws';
import type { Access } from '../auth/access.js';
import { rawText, rejectUpgrade, type UpgradeHandler } from '../http/upgradeRouter.js';
import { claimFeedCredential, type FeedCredential } from '../perimeter/socketTickets.js';
import type { DesktopHubs, ViewerHub } from './viewerHub.js';
import type { DesktopDirectory } from '../desktops/desktopDirectory.js';
import { socketDesktop } from '../desktops/socketDesktop.js';
import { TokenBucket } from '../limits/rateLimit.js';
import {
  encodeFeedMessage,
  FeedFanout,
  type EncodedFeedMessage,
  type FeedSource,
} from './feedFanout.js';
import {
  FEED_CLOSE,
  FEED_MAX_BUFFERED_BYTES,
  FEED_MAX_SYNC_BYTES,
  FEED_REQUEST_LIMIT,
  FeedSeats,
  syncTooLargeReason,
  type FeedHolder,
} from '../limits/feedLimits.js';

/** Largest frame a subscriber may send (request_sync is 24 characters). */
const MAX_FEED_REQUEST_BYTES = 1024;

/** A feed's subscriber: who it is and what it may follow (perimeter/socketTickets.ts). */
type Subscriber = FeedCredential & FeedHolder;

export interface OverlaySocketOptions {
  planes: DesktopHubs;
  directory: DesktopDirectory;
  access: Access;
  logger: Logger;
}

export interface OverlayEndpoint {
  handleUpgrade: UpgradeHandler;
  close(): void;
}

export function createOverlayEndpoint(options: OverlaySocketOptions): OverlayEndpoint {
  const { planes, directory, access, logger } = options;
  const wss = new WebSocketServer({ noServer: true, maxPayload: MAX_FEED_REQUEST_BYTES });
  const seats = new FeedSeats();
  /** One fanout per followed desktop, dropped when its last subscriber leaves. */
  const fanouts = new Map<FeedSource, FeedFanout>();

  const handleUpgrade: UpgradeHandler = (request, socket, head) => {
    claimFeedCredential(access, request).then(
      async (subscriber) => {
        if (typeof subscriber === 'string') {
          return rejectUpgrade(
            socket,
            401,
            `${subscriber} /ws/overlays needs a single-use ticket (signed in: POST /api/tickets {"socket":"overlays"}, then ?ticket=…) or an API token as "Authorization: Bearer <token>".`,
          );
        }
        const found = await socketDesktop(
          access.store,
          directory,
          subscriber.personId,
          subscriber.desktopId,
          subscriber.only,
        );
        if (!found.ok) return rejectUpgrade(socket, found.status, found.message);
        const plane = await planes.get(found.desktop.entry.record.id);
        if (plane === undefined) return rejectUpgrade(socket, 404, 'The desktop was just removed.');
        if (socket.destroyed) return;
        wss.handleUpgrade(request, socket, head, (ws) => accept(ws, subscriber, plane.hub));
      },
      (err: unknown) => {
        logger.error({ err }, 'could not authenticate an overlays socket');
        rejectUpgrade(socket, 503, 'The bridge could not check your credentials; retry shortly.');
      },
    );
  };

  function accept(ws: WebSocket, subscriber: Subscriber, hub: ViewerHub): void {
    // Taken here, synchronously on the upgraded socket, so parallel upgrades cannot all pass.
    const seat = seats.take(subscriber);
    if ('refused' in seat) {
      ws.close(FEED_CLOSE.tooManyFeeds, seat.refused);
      return;
    }
    const send = (message: EncodedFeedMessage): void => {
      if (ws.readyState !== ws.OPEN) return;
      const size = message.bytes.length;
      if (message.type === 'sync_state' && size > FEED_MAX_SYNC_BYTES) {
        logger.warn(
          { personId: subscriber.personId, bytes: size },
          'overlays feed sync_state over the limit; subscriber closed',
        );
        ws.close(FEED_CLOSE.syncTooLarge, syncTooLargeReason(size));
        return;
      }
      if (ws.bufferedAmount + size > FEED_MAX_BUFFERED_BYTES) {
        // A close frame would queue behind what it is not reading: drop the connection.
        logger.warn(
          { personId: subscriber.personId, buffered: ws.bufferedAmount },
          'overlays feed subscriber is not reading; disconnected',
        );
        ws.terminate();
        return;
      }
      // The shared bytes as a text frame; the server does not mask, so ws sends them uncopied.
      ws.send(message.bytes, { binary: false });
    };
    const unregister = access.sockets.add({
      personId: subscriber.personId,
      sessionIdHash: subscriber.credentialKey,
      kind: 'overlays',
      close: (reason) => ws.close(FEED_CLOSE.revoked, reason.slice(0, 120)),
    });
    const source = hub.overlayFeed;
    let fanout = fanouts.get(source);
    if (fanout === undefined) {
      fanout = new FeedFanout(source);
      fanouts.set(source, fanout);
    }
    const following = fanout;
    const unsubscribe = following.subscribe(send);
    send(following.currentSync());
    const requests = new TokenBucket(FEED_REQUEST_LIMIT);
    ws.on('message', (data: RawData, isBinary: boolean) => {
      if (requests.waitMs() > 0) {
        ws.close(1008, 'Too many messages: /ws/overlays is read-only.');
        return;
      }
      requests.take();
      let parsed: ReturnType<typeof FeedRequest.safeParse> | undefined;
      if (!isBinary) {
        try {
          parsed = FeedRequest.safeParse(JSON.parse(rawText(data)));
        } catch {
          parsed = undefined;
        }
      }
      if (parsed?.success === true) {
        send(following.currentSync());
        return;
      }
      const message =
        '/ws/overlays is read-only: the only message it takes is {"type":"request_sync"}. Overlays are drawn and removed by the AI through the MCP tools.';
      send(
        encodeFeedMessage({ type: 'error', message: message.slice(0, MAX_ERROR_MESSAGE_LENGTH) }),
      );
    });
    ws.on('close', () => {
      unsubscribe();
      if (following.size === 0) fanouts.delete(source);
      unregister();
      seat.release();
    });
    ws.on('error', (err) => logger.debug({ err }, 'overlays socket error'));
  }

  return {
    handleUpgrade,
    close: () => {
      for (const client of wss.clients) client.terminate();
      wss.close();
    },
  };
}
