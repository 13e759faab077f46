// POST /api/viewer/ticket: the page asks for a single-use, 30-second ticket before opening
// /ws/viewer. Until sign-in exists, tickets are handed out without it, and therefore only when
// the bridge listens on loopback (only this machine can ask). Host/Origin are guarded by the
// server's app-wide middleware (startBridge) before this route runs.
import type { Hono } from 'hono';
import {
  VIEWER_SOCKET_PATH,
  VIEWER_TICKET_PATH,
  ViewerTicketRequest,
  formatZodIssues,
  type ViewerTicketResponse,
} from '@overlay-companion/protocol';
import type { BoundAddress } from '../auth/hostGuard.js';
import { isLoopbackHost } from '../auth/loopback.js';
import type { ViewerTickets } from '../auth/viewerTickets.js';

export { VIEWER_SOCKET_PATH, VIEWER_TICKET_PATH };

export function mountTicketRoute(
  app: Hono,
  tickets: ViewerTickets,
  bound: () => BoundAddress | undefined,
): void {
  app.post(VIEWER_TICKET_PATH, async (c) => {
    c.header('Cache-Control', 'no-store');
    const address = bound();
    if (address === undefined || !isLoopbackHost(address.host)) {
      return c.json(
        {
          error: `Viewer tickets need sign-in when the bridge listens on ${address?.host ?? 'a non-loopback address'}, and sign-in is not available in this version. Bind the bridge to 127.0.0.1 (the default) and reach it through an SSH tunnel or a local proxy.`,
        },
        403,
      );
    }
    const text = await c.req.text();
    let body: unknown = {};
    if (text.trim() !== '') {
      try {
        body = JSON.parse(text);
      } catch {
        return c.json({ error: 'The body must be JSON, e.g. {} or {"headless": true}.' }, 400);
      }
    }
    // `headless` is the seam for the headless-viewer launcher: approvals then go to the MCP client.
    const parsed = ViewerTicketRequest.safeParse(body);
    if (!parsed.success) {
      return c.json({ error: `Invalid ticket request: ${formatZodIssues(parsed.error)}.` }, 400);
    }
    const issued = tickets.issue({ headless: parsed.data.headless ?? false });
    if (issued === undefined) {
      return c.json({ error: 'Too many unused viewer tickets; wait 30 seconds and retry.' }, 429);
    }
    const answer: ViewerTicketResponse = {
      ticket: issued.ticket,
      expires_at: issued.expiresAt,
      url: `${VIEWER_SOCKET_PATH}?ticket=${encodeURIComponent(issued.ticket)}`,
    };
    return c.json(answer);
  });
}
