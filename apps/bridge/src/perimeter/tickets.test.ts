// Attacks on the ticket endpoint (POST /api/tickets), the only way to a WebSocket: asking without
// being signed in, asking with the cookie but without the CSRF token (what another site's page
// could do with a browser's cookie), and a page claiming to be the bridge's headless viewer —
// which would let it answer approvals itself. Real bridge, real HTTP, real viewer sockets.
import { API, type ApiError } from '@overlay-companion/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestBridge, type TestBridge } from '../mcp/testing/fixtures.js';
import { ScriptedViewer } from '../mcp/testing/scriptedViewer.js';
import { browserHeaders, rawRequest } from './testing/http.js';

let bridge: TestBridge;

beforeAll(async () => {
  bridge = await startTestBridge();
});

afterAll(async () => {
  await bridge.close();
});

const ask = (headers: Record<string, string>, body: unknown = { socket: 'viewer' }) =>
  rawRequest(bridge.url, API.tickets, { method: 'POST', headers, body: JSON.stringify(body) });

describe('POST /api/tickets', () => {
  it('refuses a ticket to someone who is not signed in (no cookie, or a made-up one)', async () => {
    const before = bridge.access.tickets.size;
    const anonymous = await ask(browserHeaders(bridge.url, undefined));
    expect(anonymous.status).toBe(401);
    expect((JSON.parse(anonymous.body) as ApiError).error).toMatch(/Sign in/);
    const forged = await ask(
      browserHeaders(bridge.url, {
        cookie: 'oc_session=made-up-cookie-value',
        csrf: bridge.session.csrf,
      }),
    );
    expect(forged.status).toBe(401);
    expect(bridge.access.tickets.size).toBe(before);
  });

  it('refuses a ticket to a request carrying the cookie but not the CSRF token', async () => {
    const before = bridge.access.tickets.size;
    const headers = browserHeaders(bridge.url, bridge.session);
    delete headers['X-CSRF-Token'];
    const refused = await ask(headers);
    expect(refused.status).toBe(403);
    expect(refused.body).toContain('X-CSRF-Token');
    expect(bridge.access.tickets.size).toBe(before);
  });

  it('refuses a browser page that claims to be the headless viewer, and never says headless to its socket', async () => {
    const before = bridge.access.tickets.size;
    const claimed = await bridge.session.request(API.tickets, {
      body: { socket: 'viewer', headless: true },
    });
    expect(claimed.status).toBe(400);
    expect(await claimed.text()).toMatch(/headless/);
    expect(bridge.access.tickets.size).toBe(before);

    // Whatever the page asks for, the ticket a browser session gets is a person's: the socket
    // it opens is told headless: false, so the page must show approvals to the person.
    const viewer = await ScriptedViewer.connect(bridge.session);
    try {
      expect(viewer.hello.headless).toBe(false);
      expect(viewer.received.some((m) => m.type === 'hello' && m.headless)).toBe(false);
    } finally {
      await viewer.close();
    }
  });
});
