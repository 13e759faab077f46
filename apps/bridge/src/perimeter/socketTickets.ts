// Who may open the viewer's sockets: a WebSocket carries the single-use, short-lived ticket a
// signed-in page asked for over HTTP (POST /api/tickets) for that kind of socket, consumed here
// so it works once; the tunnel also caps how many desktop connections one person holds open; the
// overlay feed also takes an API token in Authorization (a program, not a page).
// (The Host/Origin check runs before any of this, for every upgrade: hostGuard.ts.)
import type { IncomingMessage } from 'node:http';
import type { TicketSocket } from '@overlay-companion/protocol';
import type { Access } from '../auth/access.js';
import { tokenSocketKey } from '../auth/socketRegistry.js';
import type { TicketClaims } from '../auth/tickets.js';
import { ticketFrom } from '../http/upgradeRouter.js';
import { openKey } from '../limits/openElsewhere.js';

/**
 * Desktop connections one person may hold open: the fleet view's tiles (one per desktop, twenty
 * at a glance; a glancing tile costs the gateway about a fifth of a full viewer, bench `tiles`)
 * plus viewer windows on several monitors and the overlap while one reconnects.
 */
export const MAX_TUNNELS_PER_PERSON = 32;

export type SocketAdmission =
  { ok: true; claims: TicketClaims } | { ok: false; status: number; message: string };

/** The claims of the request's ticket for `socket`, or the 401 that says how to get a fresh one. */
export function claimSocketTicket(
  access: Pick<Access, 'tickets'>,
  request: IncomingMessage,
  socket: TicketSocket,
): SocketAdmission {
  const claims = access.tickets.consume(ticketFrom(request), socket);
  if (claims !== undefined) return { ok: true, claims };
  return {
    ok: false,
    status: 401,
    message: `Missing, used or expired ${socket} ticket. Sign in, get a fresh one with POST /api/tickets {"socket":"${socket}"} and connect within 30 seconds; each ticket works once.`,
  };
}

/** A tunnel's ticket, then the person's cap on open tunnels (429 past it). */
export function admitTunnel(
  access: Pick<Access, 'tickets' | 'sockets'>,
  request: IncomingMessage,
): SocketAdmission {
  const admitted = claimSocketTicket(access, request, 'tunnel');
  if (!admitted.ok) return admitted;
  const { personId } = admitted.claims;
  const elsewhere = access.sockets.elsewhere?.count(openKey.personTunnels(personId)) ?? 0;
  const open = access.sockets.count(personId, 'tunnel') + elsewhere;
  if (open < MAX_TUNNELS_PER_PERSON) return admitted;
  return {
    ok: false,
    status: 429,
    message: `You already have ${open} desktop connections open (limit ${MAX_TUNNELS_PER_PERSON}). Close a viewer window, then retry in a few seconds.`,
  };
}

/** Who opens an overlay feed, by the credential it carries. */
export interface FeedCredential {
  personId: string;
  /** The desktop asked for (a ticket's); undefined: the person's (or token's) default. */
  desktopId: string | undefined;
  /** A token's desktop list; null: all of the person's. */
  only: readonly string[] | null;
  /** tokenSocketKey(tokenId) or the sign-in session's hash. */
  credentialKey: string;
  credential: 'token' | 'sign-in';
}

/**
 * The overlay feed's credential: a signed-in page's single-use overlays ticket, or an API token
 * as "Authorization: Bearer …"; otherwise why not (the endpoint answers 401 with it).
 */
export async function claimFeedCredential(
  access: Pick<Access, 'tickets' | 'tokens'>,
  request: IncomingMessage,
): Promise<FeedCredential | string> {
  const ticket = ticketFrom(request);
  if (ticket !== undefined) {
    const claims = access.tickets.consume(ticket, 'overlays');
    if (claims === undefined) return 'Missing, used or expired overlays ticket.';
    return {
      personId: claims.personId,
      desktopId: claims.desktopId,
      only: null,
      credentialKey: claims.sessionIdHash,
      credential: 'sign-in',
    };
  }
  if (request.headers.authorization !== undefined) {
    const check = await access.tokens.authenticate(request.headers.authorization);
    if (!check.ok) return check.message;
    return {
      personId: check.principal.personId,
      desktopId: undefined,
      only: check.principal.desktopIds,
      credentialKey: tokenSocketKey(check.principal.tokenId),
      credential: 'token',
    };
  }
  return 'No credentials.';
}
