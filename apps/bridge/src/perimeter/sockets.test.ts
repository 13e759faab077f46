// Attacks on the two WebSockets, /ws/viewer (the control channel: tool calls, approvals, the
// mode) and /tunnel (the live desktop), against a real bridge: no ticket, a ticket for the other
// socket kind, a replayed ticket, an expired ticket, a ticket whose sign-in session has since
// signed out, and upgrades without an Origin or from another site. Every one must be refused
// before a socket opens; only a page of the bridge with an unused ticket of a live sign-in
// session gets through.
import { API, TICKET_TTL_MS, type TicketSocket } from '@overlay-companion/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ADMIN_PASSWORD,
  ADMIN_USERNAME,
  startTestBridge,
  type TestBridge,
} from '../mcp/testing/fixtures.js';
import { signIn } from '../testing/browserSession.js';
import { tryUpgrade, tunnelPath, viewerPath } from './testing/http.js';

/** Added to the bridge's clock (tickets, sessions) to let tickets expire without waiting. */
let clockSkewMs = 0;
let bridge: TestBridge;

beforeAll(async () => {
  bridge = await startTestBridge({ access: { now: () => Date.now() + clockSkewMs } });
});

afterAll(async () => {
  await bridge.close();
});

const SOCKETS: ReadonlyArray<{
  kind: TicketSocket;
  path: (ticket?: string) => string;
  other: TicketSocket;
}> = [
  { kind: 'viewer', path: viewerPath, other: 'tunnel' },
  // The tunnel also needs its subprotocol; every upgrade below offers it, so only the ticket decides.
  { kind: 'tunnel', path: tunnelPath, other: 'viewer' },
  // The read-only overlay feed (the seed's /ws/overlays) takes tickets the same way.
  {
    kind: 'overlays',
    path: (ticket) => (ticket === undefined ? '/ws/overlays' : `/ws/overlays?ticket=${ticket}`),
    other: 'tunnel',
  },
];

function upgrade(kind: TicketSocket, path: string, options: { origin?: string | null } = {}) {
  return tryUpgrade(bridge.url, path, {
    ...options,
    ...(kind === 'tunnel' ? { protocol: 'guacamole' } : {}),
  });
}

/** Sockets of the admin registered with the bridge right now. */
const openSockets = (kind: TicketSocket): number =>
  bridge.access.sockets.count(bridge.admin.id, kind);

describe.each(SOCKETS)('the $kind socket', ({ kind, path, other }) => {
  // Each of these runs while the admin holds an unused ticket of this kind: a refusal must not
  // be a matter of there being no ticket to match.
  it(`refuses an upgrade of the ${kind} socket without a ticket`, async () => {
    const unused = await bridge.session.ticket(kind);
    for (const query of [path(), `${path()}${kind === 'tunnel' ? '&' : '?'}ticket=`]) {
      const refused = await upgrade(kind, query);
      expect(refused.status, query).toBe(401);
      expect(refused.body).toContain('POST /api/tickets');
    }
    expect(openSockets(kind)).toBe(0);
    expect((await upgrade(kind, path(unused))).status).toBe(101);
  });

  it(`refuses a made-up ticket on the ${kind} socket`, async () => {
    const unused = await bridge.session.ticket(kind);
    for (const madeUp of [
      'A'.repeat(32),
      unused.slice(0, -1),
      `${unused}x`,
      unused.toUpperCase(),
    ]) {
      expect((await upgrade(kind, path(madeUp))).status, madeUp).toBe(401);
    }
    expect((await upgrade(kind, path(unused))).status).toBe(101);
  });

  it(`refuses a ${other} ticket on the ${kind} socket, and burns it`, async () => {
    const ticket = await bridge.session.ticket(other);
    expect((await upgrade(kind, path(ticket))).status).toBe(401);
    // Trying it on the wrong socket used it up: it cannot be tried again where it belongs.
    const otherPath = SOCKETS.find((s) => s.kind === other)?.path(ticket) ?? '';
    expect((await upgrade(other, otherPath)).status).toBe(401);
  });

  it(`refuses a replayed ${kind} ticket: each one opens one socket`, async () => {
    const ticket = await bridge.session.ticket(kind);
    expect((await upgrade(kind, path(ticket))).status).toBe(101);
    const replayed = await upgrade(kind, path(ticket));
    expect(replayed.status).toBe(401);
    expect(replayed.body).toMatch(/used or expired/);
  });

  it(`refuses an expired ${kind} ticket`, async () => {
    const ticket = await bridge.session.ticket(kind);
    clockSkewMs = TICKET_TTL_MS + 1;
    try {
      expect((await upgrade(kind, path(ticket))).status).toBe(401);
    } finally {
      clockSkewMs = 0;
    }
  });

  it(`refuses a ${kind} ticket whose sign-in session has since signed out`, async () => {
    const leaving = await signIn(bridge.url, ADMIN_USERNAME, ADMIN_PASSWORD);
    const ticket = await leaving.ticket(kind);
    expect((await leaving.request(API.signOut, { body: {} })).status).toBe(200);
    expect((await upgrade(kind, path(ticket))).status).toBe(401);
  });

  it(`refuses a ${kind} upgrade without an Origin header, even with a good ticket`, async () => {
    const ticket = await bridge.session.ticket(kind);
    const refused = await upgrade(kind, path(ticket), { origin: null });
    expect(refused.status).toBe(403);
    expect(refused.body).toContain('Origin');
  });

  it(`refuses a ${kind} upgrade from another site's page (foreign or opaque Origin), even with a good ticket`, async () => {
    const ticket = await bridge.session.ticket(kind);
    for (const origin of [
      'http://evil.example',
      'null',
      `http://127.0.0.1.evil.example:${bridge.port}`,
    ]) {
      const refused = await upgrade(kind, path(ticket), { origin });
      expect(refused.status, `Origin ${origin}`).toBe(403);
      expect(refused.body).toContain('Forbidden Origin');
    }
  });
});
