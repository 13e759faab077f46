// Single-use tickets for the WebSockets (POST /api/tickets): a browser cannot put a header on a
// WebSocket, and a cookie alone never opens one, so a signed-in page asks for a ticket over HTTP
// (CSRF-checked) and presents it in the socket URL within TICKET_TTL_MS. Each ticket is bound to
// the person, their sign-in session and one socket kind.
import { z } from 'zod';
import { EpochMs } from '../common.js';

export const VIEWER_SOCKET_PATH = '/ws/viewer';
export const TUNNEL_SOCKET_PATH = '/tunnel';

/** A ticket lives this long (the issue allows at most 60 s). */
export const TICKET_TTL_MS = 30_000;

/** viewer: /ws/viewer; tunnel: /tunnel; overlays: /ws/overlays (the read-only overlay feed); fleet: /ws/fleet. */
export const TicketSocket = z.enum(['viewer', 'tunnel', 'overlays', 'fleet']);
export type TicketSocket = z.infer<typeof TicketSocket>;

export const TicketRequest = z.strictObject({
  socket: TicketSocket,
  /** The desktop the socket is for (viewer, tunnel); omitted: the person's default desktop. */
  desktop: z
    .string()
    .regex(/^[A-Za-z0-9_-]{1,64}$/)
    .optional(),
});
export type TicketRequest = z.infer<typeof TicketRequest>;

export const TicketResponse = z.object({
  ticket: z.string().min(1).max(512).describe('Single-use; put it in the socket URL as ?ticket=…'),
  expires_at: EpochMs,
});
export type TicketResponse = z.infer<typeof TicketResponse>;
