// The /ws/fleet WebSocket (Host/Origin are checked by the server's upgrade router): a signed-in
// page's single-use `fleet` ticket names the person and their sign-in session (signing out
// closes it, SocketRegistry). It sends fleet_state on connect and again whenever it changes
// (fleetFeed.ts: pushed when a desktop's hub, the directory or a person changes; nothing is read
// while nothing changes), and takes fleet_stop, fleet_stop_all and fleet_answer, each parsed with
// its schema and checked against the person's access now: Stop is the plane's own Stop
// (ViewerHub.stop, as a viewer's stop_pressed: anyone who may see the desktop), an answer is the
// hub's approval_answer path (only the person in charge; relayed to the control window, which
// settles it).
import {
  parseFleetRequest,
  type BridgeToFleet,
  type FleetToBridge,
} from '@overlay-companion/protocol';
import type { Logger } from 'pino';
import { WebSocketServer, type RawData, type WebSocket } from 'ws';
import type { Access } from '../auth/access.js';
import type { TicketClaims } from '../auth/tickets.js';
import type { DesktopDirectory } from '../desktops/desktopDirectory.js';
import { rawText, rejectUpgrade, type UpgradeHandler } from '../http/upgradeRouter.js';
import { TokenBucket } from '../limits/rateLimit.js';
import type { DesktopPlanes } from '../mcp/desktopPlanes.js';
import { claimSocketTicket } from '../perimeter/socketTickets.js';
import { FleetFeed } from './fleetFeed.js';
import { fleetDesktops } from './fleetState.js';

/** Requests a page may send: a burst of 30 (Stop all, answers), 5 per second after. */
export const FLEET_REQUEST_LIMIT = { ratePerSecond: 5, burst: 30 };
/**
 * Fleet feeds one person may hold open: every viewer window opens one (for the other desktops'
 * approvals), so room for several monitors' windows on several desktops, and a fleet page or two.
 */
export const MAX_FLEET_FEEDS_PER_PERSON = 24;
/** A page that does not read its feed is dropped past this many queued bytes. */
const FLEET_MAX_BUFFERED_BYTES = 4 * 1024 * 1024;

export interface FleetSocketOptions {
  planes: DesktopPlanes;
  directory: DesktopDirectory;
  access: Access;
  logger: Logger;
}

export interface FleetEndpoint {
  handleUpgrade: UpgradeHandler;
  close(): void;
}

export function createFleetEndpoint(options: FleetSocketOptions): FleetEndpoint {
  const { planes, directory, access, logger } = options;
  const wss = new WebSocketServer({ noServer: true, maxPayload: 4096 });
  const sources = {
    store: access.store,
    directory,
    planes,
    peopleChanged: (listener: () => void) => access.tokens.onChanged(listener),
  };

  const handleUpgrade: UpgradeHandler = (request, socket, head) => {
    const admitted = claimSocketTicket(access, request, 'fleet');
    if (!admitted.ok) return rejectUpgrade(socket, admitted.status, admitted.message);
    if (admitted.claims.headless)
      return rejectUpgrade(socket, 403, 'The headless viewer has no fleet page.');
    const { claims } = admitted;
    // Each feed re-reads at every change of the desktops it shows: one person's are bounded.
    const open = access.sockets.count(claims.personId, 'fleet');
    if (open >= MAX_FLEET_FEEDS_PER_PERSON)
      return rejectUpgrade(
        socket,
        429,
        `You already have ${open} fleet views and viewer windows open (limit ${MAX_FLEET_FEEDS_PER_PERSON}). Close some, then reload.`,
      );
    wss.handleUpgrade(request, socket, head, (ws) => accept(ws, claims));
  };

  function accept(ws: WebSocket, claims: TicketClaims): void {
    const { personId } = claims;
    const log = logger.child({ personId, part: 'fleet' });
    const unregister = access.sockets.add({
      personId,
      sessionIdHash: claims.sessionIdHash,
      kind: 'fleet',
      close: (reason) => ws.close(4401, reason.slice(0, 120)),
    });
    const requests = new TokenBucket(FLEET_REQUEST_LIMIT);
    const send = (message: BridgeToFleet): void => {
      if (ws.readyState !== ws.OPEN) return;
      const text = JSON.stringify(message);
      if (ws.bufferedAmount + text.length > FLEET_MAX_BUFFERED_BYTES) {
        log.warn('fleet page is not reading its feed; dropping it');
        ws.terminate();
        return;
      }
      ws.send(text);
    };
    const feed = new FleetFeed({
      sources,
      personId,
      send: (desktops) => send({ type: 'fleet_state', desktops }),
      inactive: () => ws.close(4403, 'Your account is not active; sign in again.'),
      failed: (err) => log.warn({ err }, 'fleet state not read'),
    });

    ws.on('message', (data: RawData, isBinary: boolean) => {
      if (ws.readyState !== ws.OPEN) return;
      if (requests.waitMs() > 0) {
        ws.close(1008, 'Too many messages.');
        return;
      }
      requests.take();
      const text = isBinary ? undefined : rawText(data);
      const parsed =
        text === undefined
          ? { ok: false as const, error: 'fleet messages must be JSON text frames' }
          : parseFleetRequest(text);
      if (!parsed.ok) {
        send({ type: 'fleet_error', message: parsed.error.slice(0, 500) });
        return;
      }
      handle(parsed.message)
        .then((problem) => {
          if (problem !== undefined) send({ type: 'fleet_error', message: problem.slice(0, 500) });
          // What the person may see is read again too (the request found it changed, perhaps).
          feed.changed('access');
        })
        .catch((err: unknown) => {
          log.error({ err }, 'fleet request failed');
          send({
            type: 'fleet_error',
            message: 'The bridge could not do that; retry in a moment.',
          });
        });
    });

    async function handle(message: FleetToBridge): Promise<string | undefined> {
      const found = await fleetDesktops(sources, personId);
      if (found === undefined) return 'Your account is not active; sign in again.';
      switch (message.type) {
        case 'fleet_stop':
        case 'fleet_stop_all': {
          const targets =
            message.type === 'fleet_stop_all'
              ? found
              : found.filter((f) => f.desktop.entry.record.id === message.desktop_id);
          if (targets.length === 0)
            return 'No such desktop of yours: it was removed or your access to it was withdrawn; nothing was stopped.';
          // Stop is for everyone who may see the desktop, as in its viewer (stop_pressed).
          for (const { plane } of targets) {
            log.warn({ desktopId: plane.desktopId }, 'Stop pressed on the fleet page');
            plane.hub.stop('Stopped by the person.', personId);
          }
          send({ type: 'fleet_stopped', desktop_ids: targets.map((t) => t.plane.desktopId) });
          return undefined;
        }
        case 'fleet_answer': {
          const target = found.find((f) => f.desktop.entry.record.id === message.desktop_id);
          if (target === undefined)
            return 'No such desktop of yours: it was removed or your access to it was withdrawn; nothing was answered.';
          return target.plane.hub.answerFor(
            { personId, access: target.desktop.access },
            { type: 'approval_answer', request_id: message.request_id, approved: message.approved },
          );
        }
        default: {
          const unknownMessage: never = message;
          void unknownMessage;
          return undefined;
        }
      }
    }

    ws.on('close', () => {
      feed.close();
      unregister();
    });
    ws.on('error', (err) => log.warn({ err }, 'fleet socket error'));
  }

  return {
    handleUpgrade,
    close: () => {
      for (const client of wss.clients) client.terminate();
      wss.close();
    },
  };
}
