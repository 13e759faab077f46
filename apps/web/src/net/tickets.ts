// Single-use tickets for the bridge's WebSockets (POST /api/tickets): a cookie never opens a
// socket, so every connect attempt of the tunnel and of the control channel asks for a fresh
// ticket first and puts it in the socket URL. Tickets for the tunnel and the control channel
// name the desktop this window's address names (none: the bridge picks the person's default).
// The errors say what the person can do about it.
import {
  API,
  TicketResponse,
  type TicketRequest,
  type TicketSocket,
} from '@overlay-companion/protocol';
import { currentDesktopParam, type DesktopParam } from '../viewport/urlViewport.js';
import { ApiRequestError, api, type ApiClient } from './api.js';

const WHAT: Record<TicketSocket, string> = {
  tunnel: 'the remote desktop',
  viewer: 'the AI link',
  overlays: 'the overlay feed',
  fleet: 'the fleet view',
};

/** The sockets that belong to one desktop (the overlay feed is the person's). */
const PER_DESKTOP: ReadonlySet<TicketSocket> = new Set(['viewer', 'tunnel']);

/** The ticket request for `socket` on `desktop` (the page's, from its address). */
export function ticketRequest(
  socket: TicketSocket,
  desktop: DesktopParam = currentDesktopParam(),
): TicketRequest {
  if (!PER_DESKTOP.has(socket)) return { socket };
  if ('error' in desktop) throw new Error(desktop.error);
  return desktop.desktop === undefined ? { socket } : { socket, desktop: desktop.desktop };
}

/**
 * A fresh ticket for one `socket`. Throws an ApiRequestError (status, retryAfterMs kept, so a
 * caller can wait as long as the bridge asks) whose message starts with what could not connect.
 */
export async function fetchTicket(
  socket: TicketSocket,
  client: ApiClient = api,
  desktop: DesktopParam = currentDesktopParam(),
): Promise<string> {
  try {
    const answer = await client.post(API.tickets, ticketRequest(socket, desktop), TicketResponse);
    return answer.ticket;
  } catch (thrown) {
    const prefix = `Could not get a ticket to connect ${WHAT[socket]}`;
    if (thrown instanceof ApiRequestError) {
      throw new ApiRequestError(`${prefix}: ${thrown.message}`, thrown);
    }
    throw new Error(`${prefix}: ${thrown instanceof Error ? thrown.message : String(thrown)}`);
  }
}
