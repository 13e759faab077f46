// Single-use tickets for the bridge's WebSockets (POST /api/tickets): a cookie never opens a
// socket, so every connect attempt of the tunnel and of the control channel asks for a fresh
// ticket first and puts it in the socket URL. The errors say what the person can do about it.
import { API, TicketResponse, type TicketSocket } from '@overlay-companion/protocol';
import { ApiRequestError, api, type ApiClient } from './api.js';

const WHAT: Record<TicketSocket, string> = {
  tunnel: 'the remote desktop',
  viewer: 'the AI link',
  overlays: 'the overlay feed',
};

/**
 * A fresh ticket for one `socket`. Throws an ApiRequestError (status, retryAfterMs kept, so a
 * caller can wait as long as the bridge asks) whose message starts with what could not connect.
 */
export async function fetchTicket(socket: TicketSocket, client: ApiClient = api): Promise<string> {
  try {
    const answer = await client.post(API.tickets, { socket }, TicketResponse);
    return answer.ticket;
  } catch (thrown) {
    const prefix = `Could not get a ticket to connect ${WHAT[socket]}`;
    if (thrown instanceof ApiRequestError) {
      throw new ApiRequestError(`${prefix}: ${thrown.message}`, thrown);
    }
    throw new Error(`${prefix}: ${thrown instanceof Error ? thrown.message : String(thrown)}`);
  }
}
