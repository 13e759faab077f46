// The /ws/viewer WebSocket endpoint: checks Host/Origin and redeems the single-use ticket on the
// upgrade, then parses every frame with the protocol's zod schemas where it arrives. A bad frame
// gets a logged warning and an `error` message back; the socket stays up unless bad or excess
// frames keep coming (flood), in which case it is closed with 1008.
import type { IncomingMessage } from 'node:http';
import { MAX_MESSAGE_CHARS, ViewerToBridge, formatZodIssues } from '@overlay-companion/protocol';
import type { Logger } from 'pino';
import { WebSocketServer, type RawData, type WebSocket } from 'ws';
import { checkHostAndOrigin, type HostPolicyOptions } from '../auth/hostGuard.js';
import type { ViewerTickets } from '../auth/viewerTickets.js';
import { rejectUpgrade, type UpgradeHandler } from '../http/upgradeRouter.js';
import { TokenBucket } from '../policy/rateLimit.js';
import { LOCAL_VIEWER_TYPES, type LocalViewerMessage } from './localMessages.js';
import type { ViewerHub } from './viewerHub.js';

/** Invalid frames tolerated: a burst of 20, refilling 1 per second. Beyond that, close. */
export const BAD_MESSAGE_LIMIT = { ratePerSecond: 1, burst: 20 };
/** All frames: a viewer streaming pointer events stays far below this. */
export const MESSAGE_LIMIT = { ratePerSecond: 500, burst: 1000 };

export interface ViewerSocketOptions {
  hub: ViewerHub;
  tickets: ViewerTickets;
  hostPolicy: HostPolicyOptions;
  logger: Logger;
}

export interface ViewerEndpoint {
  handleUpgrade: UpgradeHandler;
  close(): void;
}

export function createViewerEndpoint(options: ViewerSocketOptions): ViewerEndpoint {
  const { hub, tickets, logger } = options;
  // Screenshots are base64 text: one character is one byte, plus room for the envelope.
  const wss = new WebSocketServer({ noServer: true, maxPayload: MAX_MESSAGE_CHARS + 64 * 1024 });

  const handleUpgrade: UpgradeHandler = (request, socket, head) => {
    const check = checkHostAndOrigin(
      options.hostPolicy,
      request.headers.host,
      request.headers.origin,
    );
    if (!check.ok) return rejectUpgrade(socket, check.status, check.message);
    const ticket = ticketFrom(request);
    const claims = ticket === undefined ? undefined : tickets.consume(ticket);
    if (claims === undefined) {
      return rejectUpgrade(
        socket,
        401,
        'Missing, used or expired viewer ticket. Get a fresh one with POST /api/viewer/ticket and connect within 30 seconds; each ticket works once.',
      );
    }
    wss.handleUpgrade(request, socket, head, (ws) => {
      accept(ws, claims.headless);
    });
  };

  function accept(ws: WebSocket, headless: boolean): void {
    const id = hub.newViewerId();
    const log = logger.child({ viewerId: id });
    const bad = new TokenBucket(BAD_MESSAGE_LIMIT);
    const all = new TokenBucket(MESSAGE_LIMIT);
    const send = (text: string): void => {
      if (ws.readyState === ws.OPEN) ws.send(text);
    };
    const sendError = (message: string): void => {
      send(JSON.stringify({ type: 'error', message }));
    };

    ws.on('message', (data: RawData, isBinary: boolean) => {
      if (all.waitMs() > 0) {
        log.warn('viewer flooded the control channel; closing it');
        ws.close(1008, 'Too many messages.');
        return;
      }
      all.take();
      const text = isBinary ? undefined : rawText(data);
      const parsed = parseViewerFrame(text);
      if (!parsed.ok) {
        log.warn({ error: parsed.error }, 'invalid viewer message');
        if (bad.waitMs() > 0) {
          ws.close(1008, 'Too many invalid messages.');
          return;
        }
        bad.take();
        sendError(parsed.error);
        return;
      }
      const problem = hub.handle(id, parsed.message);
      if (problem !== undefined) {
        log.warn({ problem }, 'viewer message not applied');
        sendError(problem);
      }
    });
    ws.on('close', () => hub.detach(id));
    ws.on('error', (err) => log.warn({ err }, 'viewer socket error'));
    hub.attach({
      id,
      headless,
      send,
      close: (code, reason) => ws.close(code, reason),
    });
  }

  return {
    handleUpgrade,
    close: () => {
      hub.closeAll();
      for (const client of wss.clients) client.terminate();
      wss.close();
    },
  };
}

function ticketFrom(request: IncomingMessage): string | undefined {
  try {
    const value = new URL(request.url ?? '/', 'http://bridge.invalid').searchParams.get('ticket');
    return value === null || value === '' ? undefined : value;
  } catch {
    return undefined;
  }
}

function rawText(data: RawData): string {
  if (Array.isArray(data)) return Buffer.concat(data).toString('utf8');
  if (data instanceof ArrayBuffer) return Buffer.from(data).toString('utf8');
  return data.toString('utf8');
}

type Parsed =
  { ok: true; message: ViewerToBridge | LocalViewerMessage } | { ok: false; error: string };

const KNOWN_TYPES = [
  ...ViewerToBridge.options.map((o) => o.shape.type.value),
  ...LOCAL_VIEWER_TYPES.keys(),
].join(', ');

/**
 * Parses one frame: JSON once, then the protocol's schema for its type, or the local schema
 * for the few types the protocol lacks yet (localMessages.ts).
 */
export function parseViewerFrame(text: string | undefined): Parsed {
  if (text === undefined) return { ok: false, error: 'viewer messages must be JSON text frames' };
  if (text.length > MAX_MESSAGE_CHARS) {
    return { ok: false, error: `message over ${MAX_MESSAGE_CHARS} characters` };
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { ok: false, error: 'viewer message is not valid JSON' };
  }
  const type =
    typeof value === 'object' && value !== null ? (value as { type?: unknown }).type : undefined;
  if (typeof type !== 'string') {
    return { ok: false, error: 'viewer message must be a JSON object with a string "type" field' };
  }
  const local = LOCAL_VIEWER_TYPES.get(type);
  if (local !== undefined) {
    const result = local.safeParse(value);
    return result.success
      ? { ok: true, message: result.data }
      : { ok: false, error: `invalid ${type} message: ${formatZodIssues(result.error)}` };
  }
  const result = ViewerToBridge.safeParse(value);
  if (result.success) return { ok: true, message: result.data };
  if (!KNOWN_TYPES.split(', ').includes(type)) {
    return {
      ok: false,
      error: `unknown viewer message type ${JSON.stringify(type.slice(0, 64))}; expected one of ${KNOWN_TYPES}`,
    };
  }
  return { ok: false, error: `invalid ${type} message: ${formatZodIssues(result.error)}` };
}
