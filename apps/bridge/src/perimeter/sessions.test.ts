// The rules of sign-in sessions, attacked over real HTTP and real sockets: the cookie's
// attributes (no script may read it, no other site's request carries it, over https it is
// Secure and pinned to this origin), sign-out ending that session's open viewer and desktop
// tunnel at once (a cookie that stopped working must not leave a live desktop behind),
// disabling or removing a person ending their sessions, sockets and MCP sessions, and idle and
// absolute expiry (the bridge's clock is moved instead of waiting). The tunnels run to a real
// desktop (Xvnc behind the real gateway), so they stay open until the bridge closes them.
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { GuacStatus } from '@overlay-companion/guac';
import { API, SESSION_COOKIE } from '@overlay-companion/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectClient, startTestBridge, type TestBridge } from '../mcp/testing/fixtures.js';
import { ScriptedViewer } from '../mcp/testing/scriptedViewer.js';
import { waitUntil } from '../mcp/testing/wait.js';
import { signIn, type BrowserSession } from '../testing/browserSession.js';
import { TunnelClient } from '../testing/tunnelClient.js';
import { startTestDesktop, type TestDesktop } from './testing/desktop.js';
import { browserHeaders, rawRequest } from './testing/http.js';
import { addPerson, createToken } from './testing/people.js';

let desktop: TestDesktop;
let bridge: TestBridge;
const cleanups: Array<() => Promise<unknown>> = [];

beforeAll(async () => {
  desktop = await startTestDesktop();
  bridge = await startTestBridge({ desktop: desktop.target });
});

afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
  await bridge?.close();
  await desktop?.stop();
});

/** A signed-in page's two sockets: the control channel and a live desktop tunnel. */
async function openSockets(
  session: BrowserSession,
): Promise<{ viewer: ScriptedViewer; tunnel: TunnelClient }> {
  const viewer = await ScriptedViewer.connect(session);
  cleanups.push(() => viewer.close());
  const tunnel = await TunnelClient.open(bridge.url, await session.ticket('tunnel'));
  cleanups.push(() => tunnel.close());
  // The desktop is being drawn: the tunnel is live, not failing on its own.
  await tunnel.waitForOpcode('img');
  return { viewer, tunnel };
}

async function expectClosedAsSignedOut(sockets: {
  viewer: ScriptedViewer;
  tunnel: TunnelClient;
}): Promise<void> {
  const closed = await sockets.tunnel.closed;
  expect(closed.code).toBe(4000 + GuacStatus.CLIENT_UNAUTHORIZED);
  await waitUntil(() => sockets.viewer.closed, 5000);
}

function cookieAttributes(setCookie: string): Map<string, string> {
  return new Map(
    setCookie
      .split(';')
      .slice(1)
      .map((part) => part.trim().split('='))
      .map(([name = '', value = '']) => [name.toLowerCase(), value] as [string, string]),
  );
}

async function rawSignIn(baseUrl: string, username: string, password: string): Promise<string> {
  const answer = await rawRequest(baseUrl, API.signIn, {
    method: 'POST',
    headers: browserHeaders(baseUrl, undefined),
    body: JSON.stringify({ username, password }),
  });
  expect(answer.status).toBe(200);
  // The session cookie, and the sign-in throttle's device cookie (signInDevice.ts) beside it.
  const setCookie = answer.headers['set-cookie'] ?? [];
  const session = setCookie.filter(
    (c) => c.startsWith(`${SESSION_COOKIE}=`) || c.startsWith(`__Host-${SESSION_COOKIE}=`),
  );
  expect(session).toHaveLength(1);
  return session[0] ?? '';
}

describe('the sign-in cookie', () => {
  it('is HttpOnly, SameSite=Strict, Path=/ and lives no longer than the session (plain http)', async () => {
    const person = await addPerson(bridge.session, 'cookie-http');
    const setCookie = await rawSignIn(bridge.url, 'cookie-http', person.password);
    expect(setCookie.startsWith(`${SESSION_COOKIE}=`)).toBe(true);
    const attributes = cookieAttributes(setCookie);
    expect(attributes.has('httponly')).toBe(true);
    expect(attributes.get('samesite')).toBe('Strict');
    expect(attributes.get('path')).toBe('/');
    expect(attributes.has('domain')).toBe(false);
    expect(Number(attributes.get('max-age'))).toBe(bridge.access.sessions.limits.absoluteMs / 1000);
    // Over plain http a Secure cookie would never come back.
    expect(attributes.has('secure')).toBe(false);
  });

  it('is Secure and __Host- prefixed (pinned to this origin, no Domain) when people use https', async () => {
    const publicUrl = 'https://companion.example.test';
    const https = await startTestBridge({ publicUrl, access: { publicUrl } });
    try {
      const setCookie = await rawSignIn(https.url, 'admin', 'admin-password-0123456789');
      expect(setCookie.startsWith(`__Host-${SESSION_COOKIE}=`)).toBe(true);
      const attributes = cookieAttributes(setCookie);
      expect(attributes.has('secure')).toBe(true);
      expect(attributes.has('httponly')).toBe(true);
      expect(attributes.get('samesite')).toBe('Strict');
      expect(attributes.get('path')).toBe('/');
      expect(attributes.has('domain')).toBe(false);
      // A cookie of the unprefixed name (which a sibling host could plant) is not this bridge's.
      const value = setCookie.slice(setCookie.indexOf('=') + 1, setCookie.indexOf(';'));
      const planted = await rawRequest(https.url, API.me, {
        headers: { Cookie: `${SESSION_COOKIE}=${value}`, Origin: new URL(https.url).origin },
      });
      expect(planted.status).toBe(401);
    } finally {
      await https.close();
    }
  });
});

describe('ending sessions', () => {
  it("signing out ends that session's viewer and tunnel sockets at once, and its cookie stops working", async () => {
    const person = await addPerson(bridge.session, 'signs-out', { grant: 'view' });
    const leaving = person.session;
    const staying = await signIn(bridge.url, 'signs-out', person.password);
    const gone = await openSockets(leaving);
    const kept = await openSockets(staying);

    const signedOut = await leaving.request(API.signOut, { body: {} });
    expect(signedOut.status).toBe(200);
    expect(signedOut.headers.get('set-cookie')).toMatch(/Max-Age=0/);

    await expectClosedAsSignedOut(gone);
    expect((await leaving.request(API.me)).status).toBe(401);
    expect((await leaving.request(API.tickets, { body: { socket: 'viewer' } })).status).toBe(401);
    // The same person's other session is untouched.
    expect(kept.viewer.closed).toBe(false);
    expect(kept.tunnel.isOpen).toBe(true);
    expect((await staying.request(API.me)).status).toBe(200);
  });

  it('disabling a person ends their sign-in sessions, sockets and MCP sessions at once', async () => {
    const person = await addPerson(bridge.session, 'disabled-soon', { grant: 'view' });
    const second = await signIn(bridge.url, 'disabled-soon', person.password);
    const socketsA = await openSockets(person.session);
    const socketsB = await openSockets(second);
    const token = await createToken(person.session, 'their client');
    const { client } = await connectClient(bridge, { token: token.secret });
    cleanups.push(() => client.close());
    expect((await client.listTools()).tools.length).toBeGreaterThan(0);
    const mcpSessions = bridge.desktopControl.sessions.size;

    const disabled = await bridge.session.request(`${API.people}/${person.person.id}`, {
      method: 'PATCH',
      body: { disabled: true },
    });
    expect(disabled.status).toBe(200);
    expect(bridge.desktopControl.sessions.size).toBe(mcpSessions - 1);
    await expectClosedAsSignedOut(socketsA);
    await expectClosedAsSignedOut(socketsB);
    for (const session of [person.session, second])
      expect((await session.request(API.me)).status).toBe(401);
    await expect(client.listTools()).rejects.toThrow();
    await expect(signIn(bridge.url, 'disabled-soon', person.password)).rejects.toThrow(/401/);
  });

  it('removing a person ends their sign-in sessions, sockets and MCP sessions at once', async () => {
    const person = await addPerson(bridge.session, 'removed-soon', { grant: 'view' });
    const sockets = await openSockets(person.session);
    const token = await createToken(person.session, 'their client');
    const { client }: { client: Client } = await connectClient(bridge, { token: token.secret });
    cleanups.push(() => client.close());
    expect((await client.listTools()).tools.length).toBeGreaterThan(0);
    const mcpSessions = bridge.desktopControl.sessions.size;

    const removed = await bridge.session.request(`${API.people}/${person.person.id}`, {
      method: 'DELETE',
    });
    expect(removed.status).toBe(200);
    expect(bridge.desktopControl.sessions.size).toBe(mcpSessions - 1);
    await expectClosedAsSignedOut(sockets);
    expect((await person.session.request(API.me)).status).toBe(401);
    await expect(client.listTools()).rejects.toThrow();
  });
});

describe('session expiry', () => {
  const MINUTE = 60_000;
  let clockSkewMs = 0;
  let clocked: TestBridge;

  beforeAll(async () => {
    clocked = await startTestBridge({
      access: {
        now: () => Date.now() + clockSkewMs,
        sessionLimits: { idleMs: 10 * MINUTE, absoluteMs: 60 * MINUTE },
      },
    });
  });
  afterAll(async () => {
    await clocked.close();
  });

  it('ends a session left unused for longer than the idle limit', async () => {
    const session = await signIn(clocked.url, 'admin', 'admin-password-0123456789');
    clockSkewMs += 9 * MINUTE;
    expect((await session.request(API.me)).status).toBe(200);
    // Used 9 minutes in, so 9 more minutes later it is still within the limit…
    clockSkewMs += 9 * MINUTE;
    expect((await session.request(API.me)).status).toBe(200);
    // …but not after 10 minutes and a bit without a request.
    clockSkewMs += 10 * MINUTE + 1000;
    expect((await session.request(API.me)).status).toBe(401);
    expect((await session.request(API.tickets, { body: { socket: 'viewer' } })).status).toBe(401);
  });

  it('ends a session at its absolute expiry, however active it is', async () => {
    const session = await signIn(clocked.url, 'admin', 'admin-password-0123456789');
    for (let minutes = 0; minutes < 60; minutes += 5) {
      expect((await session.request(API.me)).status, `after ${minutes} min`).toBe(200);
      clockSkewMs += 5 * MINUTE;
    }
    clockSkewMs += 1000;
    expect((await session.request(API.me)).status).toBe(401);
  });
});
