// The /ws/viewer WebSocket endpoint (Host/Origin are checked by the server's upgrade router):
// redeems the single-use viewer ticket on the upgrade — which names the person, their sign-in
// session, the desktop and whether it is the bridge's own headless viewer — checks the person's
// access to that desktop (socketDesktop.ts) and attaches the socket to that desktop's plane with
// that access; signing out closes it (SocketRegistry). Then it parses every frame with
// the protocol's zod schemas where it arrives (text frames: parseViewerMessage; the one binary
// frame, a take_screenshot answer with raw image bytes: parseImageFrame, then the hub checks it
// answers this window's own pending take_screenshot). A bad frame
// gets a logged warning and an `error` message back; the socket stays up unless bad or excess
// frames keep coming (flood), in which case it is closed with 1008. Answers that settle a call
// or approval the bridge itself sent are never counted as flood: their rate is the MCP clients'
// call rate (limited per session), not the viewer's choice.
import {
  MAX_ERROR_MESSAGE_LENGTH,
  MAX_MESSAGE_CHARS,
  encodeBridgeMessage,
  parseImageFrame,
  parseViewerMessage,
  type DesktopAccessLevel,
} from '@overlay-companion/protocol';
import type { Logger } from 'pino';
import { WebSocketServer, type RawData, type WebSocket } from 'ws';
import type { Access } from '../auth/access.js';
import type { TicketClaims } from '../auth/tickets.js';
import { rawBytes, rawText, rejectUpgrade, type UpgradeHandler } from '../http/upgradeRouter.js';
import { claimSocketTicket } from '../perimeter/socketTickets.js';
import type { DesktopDirectory } from '../desktops/desktopDirectory.js';
import { socketDesktop } from '../desktops/socketDesktop.js';
import { TokenBucket } from '../limits/rateLimit.js';
import type { DesktopHubs, ViewerHub } from './viewerHub.js';
import { turnWriteBatch } from './writeBatch.js';

/** Invalid frames tolerated: a burst of 20, refilling 1 per second. Beyond that, close. */
export const BAD_MESSAGE_LIMIT = { ratePerSecond: 1, burst: 20 };
/**
 * Frames the viewer sends of its own accord (everything but answers that settle the bridge's
 * calls): a viewer streaming pointer events stays far below this.
 */
export const MESSAGE_LIMIT = { ratePerSecond: 500, burst: 1000 };

/** Message types that answer something the bridge asked (tool_call, approval_request). */
const ANSWERS: ReadonlySet<string> = new Set([
  'tool_result',
  'tool_error',
  'input_sent',
  'approval',
]);

/**
 * The control window's overlay store changes: they follow the AI's (rate-limited) tool calls and
 * the expiry of what those drew, so from the control window they are never flood either.
 */
const STORE_CHANGES: ReadonlySet<string> = new Set([
  'overlay_created',
  'overlay_removed',
  'clear_overlays',
  'sync_state',
]);

/**
 * Most bytes queued for one viewer window beyond what the kernel buffers, counting the message
 * about to go: room for two of the largest messages the protocol allows (a 10,000-overlay
 * sync_state), far above anything a window that reads ever has waiting.
 */
export const VIEWER_MAX_BUFFERED_BYTES = 32 * 1024 * 1024;

export interface ViewerSocketOptions {
  planes: DesktopHubs;
  directory: DesktopDirectory;
  access: Access;
  logger: Logger;
}

export interface ViewerEndpoint {
  handleUpgrade: UpgradeHandler;
  close(): void;
}

export function createViewerEndpoint(options: ViewerSocketOptions): ViewerEndpoint {
  const { planes, directory, access, logger } = options;
  // Screenshots are base64 text (one character is one byte) or a binary frame of the raw image
  // with its header (MAX_IMAGE_FRAME_BYTES + MAX_IMAGE_HEADER_BYTES, less): plus room for either.
  const wss = new WebSocketServer({ noServer: true, maxPayload: MAX_MESSAGE_CHARS + 64 * 1024 });

  const handleUpgrade: UpgradeHandler = (request, socket, head) => {
    const admitted = claimSocketTicket(access, request, 'viewer');
    if (!admitted.ok) return rejectUpgrade(socket, admitted.status, admitted.message);
    const { claims } = admitted;
    void (async () => {
      const found = await socketDesktop(access.store, directory, claims.personId, claims.desktopId);
      if (!found.ok) return rejectUpgrade(socket, found.status, found.message);
      const plane = await planes.get(found.desktop.entry.record.id);
      if (plane === undefined)
        return rejectUpgrade(socket, 404, 'The desktop was just removed; reload the page.');
      if (socket.destroyed) return;
      plane.noteName(found.person.id, found.person.displayName);
      wss.handleUpgrade(request, socket, head, (ws) =>
        accept(ws, turnWriteBatch(socket), claims, plane.hub, found.desktop.access),
      );
    })().catch((err: unknown) => {
      logger.error({ err }, 'could not load the desktop for a viewer socket');
      rejectUpgrade(socket, 503, 'The bridge could not load your desktop; retry in a moment.');
    });
  };

  function accept(
    ws: WebSocket,
    /** Before each send: what one turn sends to this window leaves in one write (writeBatch.ts). */
    holdWrites: () => void,
    claims: TicketClaims,
    hub: ViewerHub,
    desktopAccess: DesktopAccessLevel,
  ): void {
    const headless = claims.headless;
    const unregister = access.sockets.add({
      personId: claims.personId,
      sessionIdHash: claims.sessionIdHash,
      kind: 'viewer',
      close: (reason) => ws.close(4401, reason.slice(0, 120)),
    });
    const id = hub.newViewerId();
    const log = logger.child({ viewerId: id });
    const bad = new TokenBucket(BAD_MESSAGE_LIMIT);
    const all = new TokenBucket(MESSAGE_LIMIT);
    const send = (text: string): void => {
      if (ws.readyState !== ws.OPEN) return;
      // A window that does not read (hung, or a hostile page with a view grant) would make the
      // bridge hold every sync_state and frame meant for it. Past the bound it is dropped (a
      // close frame would wait behind what it is not reading); a real window reconnects and is
      // greeted afresh. text.length never exceeds the UTF-8 byte count, so this never drops early.
      if (ws.bufferedAmount + text.length > VIEWER_MAX_BUFFERED_BYTES) {
        log.warn(
          { buffered: ws.bufferedAmount },
          'viewer window is not reading its messages; dropping it',
        );
        ws.terminate();
        return;
      }
      holdWrites();
      ws.send(text);
    };
    const sendError = (message: string): void => {
      const text = message.slice(0, MAX_ERROR_MESSAGE_LENGTH);
      send(encodeBridgeMessage({ type: 'error', message: text }));
    };

    /** Counts one unsolicited frame; false (and the socket closing) once the viewer floods. */
    const withinLimit = (): boolean => {
      if (all.waitMs() > 0) {
        log.warn('viewer flooded the control channel; closing it');
        ws.close(1008, 'Too many messages.');
        return false;
      }
      all.take();
      return true;
    };

    /** Counts one invalid frame (logged, answered with an error) until the viewer floods. */
    const refuse = (error: string): void => {
      log.warn({ error }, 'invalid viewer message');
      if (!withinLimit()) return;
      if (bad.waitMs() > 0) {
        ws.close(1008, 'Too many invalid messages.');
        return;
      }
      bad.take();
      sendError(error);
    };

    ws.on('message', (data: RawData, isBinary: boolean) => {
      if (ws.readyState !== ws.OPEN) return; // closing for a flood: the rest is dropped
      if (isBinary) {
        // The one binary frame: a take_screenshot answer with raw image bytes (imageFrame.ts).
        // Only an answer to this window's own pending take_screenshot settles anything.
        const frame = parseImageFrame(rawBytes(data));
        const problem = frame.ok ? hub.settleImage(id, frame.header, frame.image) : frame.error;
        if (problem !== undefined) refuse(problem);
        return;
      }
      const parsed = parseViewerMessage(rawText(data));
      if (!parsed.ok) {
        refuse(parsed.error);
        return;
      }
      const type = parsed.message.type;
      const answer = ANSWERS.has(type) || (STORE_CHANGES.has(type) && hub.roleOf(id) === 'control');
      if (!answer && !withinLimit()) return;
      const problem = hub.handle(id, parsed.message);
      if (problem !== undefined) {
        // An answer nobody is waiting for (late, made up) was unsolicited after all.
        if (answer && !withinLimit()) return;
        log.warn({ problem }, 'viewer message not applied');
        sendError(problem);
      }
    });
    ws.on('close', () => {
      unregister();
      hub.detach(id);
    });
    ws.on('error', (err) => log.warn({ err }, 'viewer socket error'));
    hub.attach({
      id,
      headless,
      personId: claims.personId,
      access: desktopAccess,
      send,
      close: (code, reason) => ws.close(code, reason),
    });
  }

  return {
    handleUpgrade,
    close: () => {
      for (const client of wss.clients) client.terminate();
      wss.close();
    },
  };
}
