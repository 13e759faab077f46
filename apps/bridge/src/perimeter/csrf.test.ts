// Cross-site request forgery against every state-changing /api route, over real HTTP: each
// request carries the signed-in admin's valid cookie (as a browser attaches it) and a body the
// route accepts, but no CSRF token, a wrong one (another live session's, a made-up one, an empty
// one), or another site's Origin. Every one must be refused with 403 and change nothing stored,
// issue no ticket and end no session. The last test sends the same requests with the right token
// and sees them accepted, so the refusals were the CSRF defence's doing and nothing else's.
import { API, CSRF_HEADER } from '@overlay-companion/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ADMIN_PASSWORD,
  ADMIN_USERNAME,
  startTestBridge,
  type TestBridge,
} from '../mcp/testing/fixtures.js';
import { signIn, type BrowserSession } from '../testing/browserSession.js';
import { dumpDatabase } from './testing/database.js';
import { signedInStateChanging, type Endpoint, type EndpointTargets } from './testing/endpoints.js';
import { rawRequest } from './testing/http.js';
import { addPerson, createToken } from './testing/people.js';

let bridge: TestBridge;
let targets: EndpointTargets;
/** Another live sign-in session of the same admin: its CSRF token is real, but not this one's. */
let otherSession: BrowserSession;

beforeAll(async () => {
  bridge = await startTestBridge();
  const bob = await addPerson(bridge.session, 'bob');
  const token = await createToken(bridge.session, 'a token to revoke');
  // A stored layout unlike the one the endpoint list sends, so a forged PUT would show.
  await bridge.session.request(API.layout, {
    method: 'PUT',
    body: { layout: { monitors: [{ x: 0, y: 0, width: 1280, height: 800 }] } },
  });
  const desktop = await bridge.session.request(API.desktops, {
    body: { name: 'a desktop to change', kind: 'vnc', params: { host: 'vnc.example', port: 5900 } },
  });
  const desktopId = ((await desktop.json()) as { id: string }).id;
  targets = { tokenId: token.id, personId: bob.person.id, password: ADMIN_PASSWORD, desktopId };
  otherSession = await signIn(bridge.url, ADMIN_USERNAME, ADMIN_PASSWORD);
});

afterAll(async () => {
  await bridge.close();
});

function send(endpoint: Endpoint, headers: Record<string, string>) {
  return rawRequest(bridge.url, endpoint.path, {
    method: endpoint.method,
    headers: {
      Origin: new URL(bridge.url).origin,
      'Content-Type': 'application/json',
      Cookie: bridge.session.cookie,
      ...headers,
    },
    ...(endpoint.body === undefined ? {} : { body: JSON.stringify(endpoint.body) }),
  });
}

/**
 * Sends every state-changing route with `headers` and expects each refused with 403 and
 * `message`; then checks nothing stored changed, no ticket was issued and the session lives.
 */
async function expectAllRefused(headers: Record<string, string>, message: RegExp): Promise<void> {
  await bridge.access.audit.flush();
  const before = dumpDatabase(bridge.dataDir);
  const tickets = bridge.access.tickets.size;
  for (const endpoint of signedInStateChanging(targets)) {
    const answer = await send(endpoint, headers);
    expect(answer.status, `${endpoint.method} ${endpoint.path}`).toBe(403);
    expect(answer.body).toMatch(message);
  }
  await bridge.access.audit.flush();
  expect(dumpDatabase(bridge.dataDir)).toEqual(before);
  expect(bridge.access.tickets.size).toBe(tickets);
  expect((await bridge.session.request(API.me)).status).toBe(200);
}

describe('CSRF on every state-changing request', () => {
  it('refuses a request with a valid cookie but no CSRF token', async () => {
    await expectAllRefused({}, /X-CSRF-Token/);
  });

  it('refuses a request with a wrong CSRF token (another session of the same person, made up, empty)', async () => {
    expect(otherSession.csrf).not.toBe(bridge.session.csrf);
    await expectAllRefused({ [CSRF_HEADER]: otherSession.csrf }, /X-CSRF-Token/);
    await expectAllRefused(
      { [CSRF_HEADER]: 'A'.repeat(bridge.session.csrf.length) },
      /X-CSRF-Token/,
    );
    await expectAllRefused({ [CSRF_HEADER]: '' }, /X-CSRF-Token/);
  });

  it("refuses a request from another site's page (foreign Origin), with or without the token", async () => {
    await expectAllRefused({ Origin: 'http://evil.example' }, /Forbidden Origin/);
    await expectAllRefused(
      { Origin: 'http://evil.example', [CSRF_HEADER]: bridge.session.csrf },
      /Forbidden Origin/,
    );
  });

  it('accepts the very same requests with the right token (so only CSRF refused them above)', async () => {
    for (const endpoint of signedInStateChanging(targets)) {
      const answer = await send(endpoint, { [CSRF_HEADER]: bridge.session.csrf });
      expect(answer.status, `${endpoint.method} ${endpoint.path}: ${answer.body}`).toBeLessThan(
        300,
      );
    }
    // The last of them signed this session out.
    expect((await bridge.session.request(API.me)).status).toBe(401);
  });
});
