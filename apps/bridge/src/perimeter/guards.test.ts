// Attacks every endpoint shares, against a real bridge over raw HTTP: a foreign Host (a DNS-
// rebound name) and a foreign Origin (another site's page) on every endpoint the bridge serves —
// /healthz, the pages, every /api route with its method, /mcp and both WebSocket upgrades — each
// sent with valid credentials, so only the guard can refuse it; oversized bodies, declared with
// Content-Length or streamed chunked without one, on /api and /mcp; and bodies that are not
// JSON on every state-changing /api route (what an HTML form on another site can send). None
// may get through, and none may change anything stored.
import {
  API,
  PAGES,
  TUNNEL_SOCKET_PATH,
  VIEWER_SOCKET_PATH,
  type ApiError,
  type TicketSocket,
} from '@overlay-companion/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_API_BODY_BYTES, MAX_MCP_BODY_BYTES } from './guards.js';
import {
  ADMIN_PASSWORD,
  INITIALIZE_REQUEST,
  TOKEN,
  startTestBridge,
  type TestBridge,
} from '../mcp/testing/fixtures.js';
import { dumpDatabase } from './testing/database.js';
import {
  mcpEndpoints,
  publicStateChanging,
  reads,
  signedInStateChanging,
  type Endpoint,
  type EndpointTargets,
} from './testing/endpoints.js';
import {
  MCP_RPC_HEADERS,
  browserHeaders,
  initializeMcp,
  rawRequest,
  tryUpgrade,
  tunnelPath,
  viewerPath,
  type RawResponse,
} from './testing/http.js';
import { addPerson, createToken } from './testing/people.js';

let bridge: TestBridge;
let targets: EndpointTargets;
let mcpSessionId: string;

const MCP_HEADERS = { ...MCP_RPC_HEADERS, Authorization: `Bearer ${TOKEN}` };

beforeAll(async () => {
  bridge = await startTestBridge();
  const bob = await addPerson(bridge.session, 'bob');
  const token = await createToken(bridge.session, 'a token to revoke');
  // A stored layout unlike the one the endpoint list sends, so a PUT that got through would show.
  const layout = await bridge.session.request(API.layout, {
    method: 'PUT',
    body: { layout: { monitors: [{ x: 0, y: 0, width: 1280, height: 800 }] } },
  });
  expect(layout.status).toBe(200);
  targets = { tokenId: token.id, personId: bob.person.id, password: ADMIN_PASSWORD };
  const opened = await initializeMcp(bridge.url, TOKEN);
  expect(opened.status).toBe(200);
  mcpSessionId = String(opened.headers['mcp-session-id']);
});

afterAll(async () => {
  await bridge.close();
});

/** Everything stored, once every audit entry already recorded has been written. */
async function stored(): Promise<ReturnType<typeof dumpDatabase>> {
  await bridge.access.audit.flush();
  return dumpDatabase(bridge.dataDir);
}

/** Sends `endpoint` with everything a legitimate caller would send, plus `headers`. */
function send(
  endpoint: Endpoint & { sessionId?: string },
  headers: Record<string, string>,
): Promise<RawResponse> {
  const base =
    endpoint.route === '/mcp'
      ? {
          ...MCP_HEADERS,
          ...(endpoint.sessionId === undefined ? {} : { 'Mcp-Session-Id': endpoint.sessionId }),
        }
      : browserHeaders(bridge.url, bridge.session);
  return rawRequest(bridge.url, endpoint.path, {
    method: endpoint.method,
    headers: { ...base, ...headers },
    ...(endpoint.body === undefined ? {} : { body: JSON.stringify(endpoint.body) }),
  });
}

function everyHttpEndpoint(): Array<Endpoint & { sessionId?: string }> {
  return [
    ...reads(),
    ...publicStateChanging({ password: ADMIN_PASSWORD }),
    ...mcpEndpoints(mcpSessionId),
    ...signedInStateChanging(targets),
  ];
}

/** Upgrades with a fresh, valid ticket each, so only the Host/Origin check can refuse them. */
async function upgradeWith(
  path: string,
  headers: { origin?: string | null; host?: string },
): Promise<RawResponse> {
  const kind: TicketSocket = path === TUNNEL_SOCKET_PATH ? 'tunnel' : 'viewer';
  const ticket = await bridge.session.ticket(kind);
  return tryUpgrade(bridge.url, kind === 'tunnel' ? tunnelPath(ticket) : viewerPath(ticket), {
    ...headers,
    ...(kind === 'tunnel' ? { protocol: 'guacamole' } : {}),
  });
}

describe('the endpoint list these tests walk', () => {
  it('names every API path and page of the protocol, /healthz, /mcp and both sockets', () => {
    const covered = new Set(everyHttpEndpoint().map((e) => e.route.replace(/\/:[a-z]+.*$/, '')));
    const expected = [
      ...Object.values(API),
      ...Object.values(PAGES),
      '/healthz',
      '/mcp',
      TUNNEL_SOCKET_PATH,
    ];
    expect(expected.filter((path) => !covered.has(path))).toEqual([]);
    // Every method of the routes with an id.
    const routes = everyHttpEndpoint().map((e) => `${e.method} ${e.route}`);
    for (const route of [
      `DELETE ${API.tokens}/:id`,
      `PATCH ${API.people}/:id`,
      `DELETE ${API.people}/:id`,
      `GET ${API.audit}/:id/screenshot`,
    ]) {
      expect(routes).toContain(route);
    }
  });
});

describe('Host and Origin on every endpoint', () => {
  it('refuses a foreign Host (a DNS-rebound name) on every endpoint, with valid credentials', async () => {
    const before = await stored();
    for (const host of [
      `evil.example:${bridge.port}`,
      `127.0.0.1.nip.io:${bridge.port}`,
      'evil.example',
    ]) {
      for (const endpoint of everyHttpEndpoint()) {
        const answer = await send(endpoint, { Host: host });
        expect(answer.status, `${endpoint.method} ${endpoint.path} with Host ${host}`).toBe(403);
        expect(answer.body).toContain('Forbidden Host');
      }
      for (const path of [VIEWER_SOCKET_PATH, TUNNEL_SOCKET_PATH]) {
        const answer = await upgradeWith(path, { host });
        expect(answer.status, `upgrade ${path} with Host ${host}`).toBe(403);
      }
    }
    expect(await stored()).toEqual(before);
    expect(bridge.desktopControl.sessions.size).toBe(1);
  });

  it("refuses another site's Origin on every endpoint, with valid credentials", async () => {
    const before = await stored();
    for (const origin of [
      'http://evil.example',
      'null',
      `http://localhost.evil.example:${bridge.port}`,
      `https://127.0.0.1:${bridge.port + 1}`,
    ]) {
      for (const endpoint of everyHttpEndpoint()) {
        const answer = await send(endpoint, { Origin: origin });
        expect(answer.status, `${endpoint.method} ${endpoint.path} with Origin ${origin}`).toBe(
          403,
        );
        expect(answer.body).toContain('Forbidden Origin');
      }
      for (const path of [VIEWER_SOCKET_PATH, TUNNEL_SOCKET_PATH]) {
        const answer = await upgradeWith(path, { origin });
        expect(answer.status, `upgrade ${path} with Origin ${origin}`).toBe(403);
      }
    }
    expect(await stored()).toEqual(before);
    expect(bridge.desktopControl.sessions.size).toBe(1);
  });
});

/** `json` followed by spaces (still valid JSON) until the whole is `size` bytes. */
function padded(json: unknown, size: number): string {
  const text = JSON.stringify(json);
  return text + ' '.repeat(size - Buffer.byteLength(text));
}

/** The same padded body, streamed in 64 KiB parts. */
function* paddedChunks(json: unknown, size: number): Generator<string> {
  const text = JSON.stringify(json);
  yield text;
  const part = ' '.repeat(64 * 1024);
  let left = size - Buffer.byteLength(text);
  while (left > 0) {
    const next = Math.min(left, part.length);
    yield part.slice(0, next);
    left -= next;
  }
}

describe('body limits', () => {
  // Each body is valid JSON the route would accept (padded with whitespace), so only its size
  // can get it refused.
  const signInBody = { username: 'admin', password: ADMIN_PASSWORD };
  const layoutBody = { layout: { monitors: [{ x: 0, y: 0, width: 10, height: 10 }] } };

  it('refuses an oversized body declared with Content-Length: 413 on /api and /mcp, nothing done', async () => {
    const before = await stored();
    const sessions = bridge.desktopControl.sessions.size;
    const signIn = await rawRequest(bridge.url, API.signIn, {
      method: 'POST',
      headers: browserHeaders(bridge.url, undefined),
      body: padded(signInBody, MAX_API_BODY_BYTES + 1),
    });
    expect(signIn.status).toBe(413);
    expect(signIn.headers['set-cookie']).toBeUndefined();
    const layout = await rawRequest(bridge.url, API.layout, {
      method: 'PUT',
      headers: browserHeaders(bridge.url, bridge.session),
      body: padded(layoutBody, MAX_API_BODY_BYTES + 1),
    });
    expect(layout.status).toBe(413);
    expect((JSON.parse(layout.body) as ApiError).error).toMatch(/too large/);
    const mcp = await rawRequest(bridge.url, '/mcp', {
      method: 'POST',
      headers: MCP_HEADERS,
      body: padded(INITIALIZE_REQUEST, MAX_MCP_BODY_BYTES + 1),
    });
    expect(mcp.status).toBe(413);
    const rpc = JSON.parse(mcp.body) as { jsonrpc: string; error: { message: string } };
    expect(rpc.jsonrpc).toBe('2.0');
    expect(rpc.error.message).toMatch(/too large/);
    expect(bridge.desktopControl.sessions.size).toBe(sessions);
    expect(await stored()).toEqual(before);
  });

  it('refuses an oversized chunked body (no Content-Length): 413 on /api and /mcp, nothing done', async () => {
    const before = await stored();
    const sessions = bridge.desktopControl.sessions.size;
    const signIn = await rawRequest(bridge.url, API.signIn, {
      method: 'POST',
      headers: browserHeaders(bridge.url, undefined),
      chunked: paddedChunks(signInBody, MAX_API_BODY_BYTES + 1),
    });
    expect(signIn.status).toBe(413);
    expect(signIn.headers['set-cookie']).toBeUndefined();
    const layout = await rawRequest(bridge.url, API.layout, {
      method: 'PUT',
      headers: browserHeaders(bridge.url, bridge.session),
      chunked: paddedChunks(layoutBody, MAX_API_BODY_BYTES + 1),
    });
    expect(layout.status).toBe(413);
    const mcp = await rawRequest(bridge.url, '/mcp', {
      method: 'POST',
      headers: MCP_HEADERS,
      chunked: paddedChunks(INITIALIZE_REQUEST, MAX_MCP_BODY_BYTES + 1),
    });
    expect(mcp.status).toBe(413);
    expect(bridge.desktopControl.sessions.size).toBe(sessions);
    expect(await stored()).toEqual(before);
  });

  it('accepts the same requests just under the limits (the limits are where they say)', async () => {
    const signIn = await rawRequest(bridge.url, API.signIn, {
      method: 'POST',
      headers: browserHeaders(bridge.url, undefined),
      chunked: paddedChunks(signInBody, MAX_API_BODY_BYTES),
    });
    expect(signIn.status).toBe(200);
    const mcp = await rawRequest(bridge.url, '/mcp', {
      method: 'POST',
      headers: MCP_HEADERS,
      body: padded(INITIALIZE_REQUEST, MAX_MCP_BODY_BYTES),
    });
    expect(mcp.status).toBe(200);
  });
});

describe('content type', () => {
  it('refuses every state-changing /api request whose body is not declared JSON: 415, nothing done', async () => {
    const before = await stored();
    const tickets = bridge.access.tickets.size;
    const endpoints = [
      ...publicStateChanging({ password: ADMIN_PASSWORD }),
      ...signedInStateChanging(targets),
    ];
    // What an HTML form on another site can send, a plain-text body, and no type at all.
    for (const type of [
      'text/plain',
      'application/x-www-form-urlencoded',
      'multipart/form-data; boundary=x',
      undefined,
    ]) {
      for (const endpoint of endpoints) {
        const headers = browserHeaders(bridge.url, bridge.session);
        if (type === undefined) delete headers['Content-Type'];
        else headers['Content-Type'] = type;
        const answer = await rawRequest(bridge.url, endpoint.path, {
          method: endpoint.method,
          headers,
          body: JSON.stringify(endpoint.body ?? {}),
        });
        expect(answer.status, `${endpoint.method} ${endpoint.path} as ${type ?? 'no type'}`).toBe(
          415,
        );
        expect(answer.body).toContain('application/json');
      }
    }
    expect(await stored()).toEqual(before);
    expect(bridge.access.tickets.size).toBe(tickets);
  });
});
