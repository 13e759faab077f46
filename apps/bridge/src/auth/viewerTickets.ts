// Short-lived single-use tickets for the viewer socket. A browser cannot put an Authorization
// header on a WebSocket, so the page first obtains a ticket over HTTP (same-origin, Host/Origin
// checked) and presents it in the socket URL; the ticket dies on first use or after 30 s, so a
// leaked URL is worthless.
import { randomBytes } from 'node:crypto';

export const TICKET_TTL_MS = 30_000;
/** Outstanding tickets beyond this are refused: a page loop must not grow memory without bound. */
export const MAX_OUTSTANDING_TICKETS = 1024;

export interface TicketClaims {
  /**
   * The socket belongs to a headless viewer (no person at this browser): approvals then go to
   * the MCP client through elicitation instead of this viewer's confirmation UI.
   */
  headless: boolean;
}

export interface IssuedTicket {
  ticket: string;
  expiresAt: number;
}

interface Entry extends TicketClaims {
  expiresAt: number;
}

export class ViewerTickets {
  private readonly entries = new Map<string, Entry>();

  constructor(
    private readonly ttlMs = TICKET_TTL_MS,
    private readonly now: () => number = Date.now,
  ) {}

  /** Returns undefined when too many tickets are outstanding (caller answers 429). */
  issue(claims: TicketClaims): IssuedTicket | undefined {
    this.sweep();
    if (this.entries.size >= MAX_OUTSTANDING_TICKETS) return undefined;
    const ticket = randomBytes(24).toString('base64url');
    const expiresAt = this.now() + this.ttlMs;
    this.entries.set(ticket, { ...claims, expiresAt });
    return { ticket, expiresAt };
  }

  /** Redeems a ticket once. Unknown, used and expired tickets all give undefined. */
  consume(ticket: string): TicketClaims | undefined {
    const entry = this.entries.get(ticket);
    if (entry === undefined) return undefined;
    this.entries.delete(ticket);
    if (entry.expiresAt <= this.now()) return undefined;
    return { headless: entry.headless };
  }

  get size(): number {
    return this.entries.size;
  }

  private sweep(): void {
    const now = this.now();
    for (const [ticket, entry] of this.entries) {
      if (entry.expiresAt <= now) this.entries.delete(ticket);
    }
  }
}
