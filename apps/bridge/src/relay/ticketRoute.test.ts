// POST /api/viewer/ticket without a server (app.request): loopback-only issuance and body checks.
import { Hono } from 'hono';
import { describe, expect, it } from 'vitest';
import { ViewerTickets } from '../auth/viewerTickets.js';
import { mountTicketRoute } from './ticketRoute.js';

function appBoundTo(host: string) {
  const tickets = new ViewerTickets(30_000);
  const app = new Hono();
  mountTicketRoute(app, tickets, () => ({ host, port: 8080 }));
  return { app, tickets };
}

describe('viewer tickets route', () => {
  it('issues a single-use ticket with its socket URL on loopback', async () => {
    const { app, tickets } = appBoundTo('127.0.0.1');
    const response = await app.request('/api/viewer/ticket', { method: 'POST' });
    expect(response.status).toBe(200);
    expect(response.headers.get('cache-control')).toBe('no-store');
    const body = (await response.json()) as { ticket: string; url: string; expires_at: number };
    expect(body.url).toBe(`/ws/viewer?ticket=${encodeURIComponent(body.ticket)}`);
    expect(body.expires_at).toBeGreaterThan(Date.now());
    expect(tickets.consume(body.ticket)).toEqual({ headless: false });
    expect(tickets.consume(body.ticket)).toBeUndefined();
  });

  it('carries the headless seam', async () => {
    const { app, tickets } = appBoundTo('127.0.0.1');
    const response = await app.request('/api/viewer/ticket', {
      method: 'POST',
      body: JSON.stringify({ headless: true }),
    });
    const { ticket } = (await response.json()) as { ticket: string };
    expect(tickets.consume(ticket)).toEqual({ headless: true });
  });

  it('refuses without sign-in when the bridge is not on loopback', async () => {
    const { app } = appBoundTo('0.0.0.0');
    const response = await app.request('/api/viewer/ticket', { method: 'POST' });
    expect(response.status).toBe(403);
    expect(((await response.json()) as { error: string }).error).toMatch(/need sign-in/);
  });

  it('names a bad body field', async () => {
    const { app } = appBoundTo('127.0.0.1');
    const response = await app.request('/api/viewer/ticket', {
      method: 'POST',
      body: JSON.stringify({ headless: 'yes', admin: true }),
    });
    expect(response.status).toBe(400);
    const { error } = (await response.json()) as { error: string };
    expect(error).toMatch(/headless: must be a boolean/);
    expect(error).toMatch(/admin: is not a known field/);
  });
});

describe('ViewerTickets', () => {
  it('expires tickets after their TTL and bounds outstanding tickets', () => {
    let now = 1000;
    const tickets = new ViewerTickets(30_000, () => now);
    const issued = tickets.issue({ headless: false });
    now += 30_000;
    expect(issued && tickets.consume(issued.ticket)).toBeUndefined();
    for (let i = 0; i < 1024; i += 1) expect(tickets.issue({ headless: false })).toBeDefined();
    expect(tickets.issue({ headless: false })).toBeUndefined();
    now += 30_001;
    expect(tickets.issue({ headless: false })).toBeDefined();
  });
});
