// The viewer ticket exchange over HTTP: POST /api/viewer/ticket answers with a single-use
// ticket for the /ws/viewer WebSocket (a browser cannot put an Authorization header on a
// WebSocket). Shared so the bridge's answer and the viewer's parse agree.
import { z } from 'zod';

export const VIEWER_TICKET_PATH = '/api/viewer/ticket';
export const VIEWER_SOCKET_PATH = '/ws/viewer';

/** Request body: `{}` for a person's viewer, `{"headless": true}` for a window nobody watches. */
export const ViewerTicketRequest = z.strictObject({ headless: z.boolean().optional() });
export type ViewerTicketRequest = z.infer<typeof ViewerTicketRequest>;

/** Success answer. Unknown extra fields are allowed so the bridge can add some later. */
export const ViewerTicketResponse = z.object({
  ticket: z.string().min(1).max(512).describe('Single-use; put it in /ws/viewer?ticket=…'),
  expires_at: z.int().min(0).optional().describe('Epoch ms after which the ticket is refused.'),
  url: z
    .string()
    .max(1024)
    .optional()
    .describe('Path of the socket with the ticket, e.g. /ws/viewer?ticket=…'),
});
export type ViewerTicketResponse = z.infer<typeof ViewerTicketResponse>;

/** Refusal answer (4xx): a sentence for the person. */
export const ViewerTicketError = z.object({ error: z.string().max(2000) });
