// Socket tickets with an injected clock: single use, bound to a socket kind, expiring, limited per
// person (bucket and outstanding cap) without touching another person, dropped on sign-out.
import { describe, expect, it } from 'vitest';
import { MAX_OUTSTANDING_PER_PERSON, Tickets, type TicketClaims } from './tickets.js';

const claims = (over: Partial<TicketClaims> = {}): TicketClaims => ({
  personId: 'p_a',
  sessionIdHash: 's1',
  socket: 'viewer',
  headless: false,
  ...over,
});

function issue(tickets: Tickets, over: Partial<TicketClaims> = {}): string {
  const issued = tickets.issue(claims(over));
  if (!issued.ok) throw new Error(issued.message);
  return issued.ticket;
}

describe('Tickets', () => {
  it('redeems a ticket once, for its own socket kind only, with its claims', () => {
    const tickets = new Tickets(30_000, () => 0);
    const ticket = issue(tickets);
    expect(tickets.consume(ticket, 'viewer')).toEqual(claims());
    expect(tickets.consume(ticket, 'viewer')).toBeUndefined();
    const tunnelTicket = issue(tickets, { socket: 'tunnel' });
    // Presented at the wrong socket, it is burned as well.
    expect(tickets.consume(tunnelTicket, 'viewer')).toBeUndefined();
    expect(tickets.consume(tunnelTicket, 'tunnel')).toBeUndefined();
    expect(tickets.consume(undefined, 'viewer')).toBeUndefined();
    expect(tickets.consume('made-up', 'viewer')).toBeUndefined();
  });

  it('refuses an expired ticket', () => {
    let now = 0;
    const tickets = new Tickets(30_000, () => now);
    const ticket = issue(tickets);
    now = 30_000;
    expect(tickets.consume(ticket, 'viewer')).toBeUndefined();
  });

  it("limits issuance per person, and one person's burst never blocks another", () => {
    const tickets = new Tickets(30_000, () => 0, { ratePerSecond: 0.001, burst: 3 });
    for (let i = 0; i < 3; i++) issue(tickets);
    const refused = tickets.issue(claims());
    expect(refused).toMatchObject({ ok: false });
    if (!refused.ok) expect(refused.retryAfterMs).toBeGreaterThan(0);
    expect(tickets.issue(claims({ personId: 'p_b' })).ok).toBe(true);
  });

  it('caps the unused tickets one person holds', () => {
    const tickets = new Tickets(30_000, () => 0, { ratePerSecond: 1e9, burst: 1e9 });
    for (let i = 0; i < MAX_OUTSTANDING_PER_PERSON; i++) issue(tickets);
    const refused = tickets.issue(claims());
    expect(refused.ok).toBe(false);
    if (!refused.ok) expect(refused.message).toMatch(/unused socket tickets/);
    expect(tickets.issue(claims({ personId: 'p_b' })).ok).toBe(true);
  });

  it('drops the unused tickets of sessions that ended', () => {
    const tickets = new Tickets(30_000, () => 0);
    const ended = issue(tickets, { sessionIdHash: 'gone' });
    const kept = issue(tickets, { sessionIdHash: 'kept' });
    tickets.revokeSessions(['gone']);
    expect(tickets.consume(ended, 'viewer')).toBeUndefined();
    expect(tickets.consume(kept, 'viewer')).toBeDefined();
  });
});
