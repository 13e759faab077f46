// POST /api/tickets: a single-use ticket for one WebSocket (the viewer's control channel or the
// Guacamole tunnel), for the signed-in person, this sign-in session and one desktop (the one the
// request names, when the person may see it; else their default, chosen when the socket opens).
// Limited per person.
import { API, TicketRequest, type TicketResponse } from '@overlay-companion/protocol';
import type { Hono } from 'hono';
import { apiError, parseJsonBody } from '../http/apiError.js';
import type { BridgeEnv } from '../http/env.js';
import type { ApiDeps } from './deps.js';

export function mountTicketRoutes(app: Hono<BridgeEnv>, deps: ApiDeps): void {
  app.post(API.tickets, async (c) => {
    const signedIn = c.get('signedIn');
    if (signedIn === undefined) return apiError(c, 401, 'Sign in first.');
    const body = await parseJsonBody(c, TicketRequest);
    if (!body.ok) return body.response;
    const desktopId = body.value.desktop;
    // The fleet feed is of every desktop the person may see (none is fine: the page says so).
    if (desktopId === undefined && deps.directory !== undefined && body.value.socket !== 'fleet') {
      // Said now, where the page shows it, rather than as a refused socket it keeps retrying.
      const fallback = await deps.directory.defaultFor(signedIn.person);
      if (fallback === undefined)
        return apiError(
          c,
          404,
          'You have no desktop yet: ask an admin to grant you one (the Desktops page), or to let people add their own.',
        );
    }
    if (desktopId !== undefined) {
      const found = await deps.directory?.accessFor(signedIn.person, desktopId);
      if (found === undefined)
        return apiError(
          c,
          404,
          'No such desktop of yours: it was removed or your access to it was withdrawn. Pick another on the Desktops page.',
        );
    }
    const issued = deps.access.tickets.issue({
      desktopId,
      personId: signedIn.person.id,
      sessionIdHash: signedIn.session.idHash,
      socket: body.value.socket,
      // Decided by the session, never by the request: only the bridge's own Chromium has one.
      headless: signedIn.session.headless,
    });
    if (!issued.ok) return apiError(c, 429, issued.message, { retryAfterMs: issued.retryAfterMs });
    // In a site, the page may connect to another bridge: answered once the others know it.
    await deps.access.tickets.told();
    const answer: TicketResponse = { ticket: issued.ticket, expires_at: issued.expiresAt };
    c.header('Cache-Control', 'no-store');
    return c.json(answer);
  });
}
