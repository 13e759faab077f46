// Attacks on /mcp's bearer tokens, against a real bridge with real MCP SDK clients and raw
// JSON-RPC: no token, a wrong one, an expired one, a revoked one (its very next call and its
// open session must be refused), the token of a person an admin disabled, token A riding token
// B's MCP session, and a browser's sign-in cookie alone. Each must get 401 or 404 and no
// session.
import { randomBytes } from 'node:crypto';
import { API } from '@overlay-companion/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tokenHint } from '../auth/apiTokens.js';
import { sha256Hex } from '../auth/secrets.js';
import {
  INITIALIZE_REQUEST,
  OTHER_TOKEN,
  TOKEN,
  connectClient,
  startTestBridge,
  type TestBridge,
} from '../mcp/testing/fixtures.js';
import { registerSecret } from '../testing/testLogs.js';
import { rawRequest, type RawResponse } from './testing/http.js';
import { addPerson, createToken } from './testing/people.js';

let bridge: TestBridge;

beforeAll(async () => {
  bridge = await startTestBridge();
});

afterAll(async () => {
  await bridge.close();
});

const RPC_HEADERS = {
  'Content-Type': 'application/json',
  Accept: 'application/json, text/event-stream',
  'MCP-Protocol-Version': INITIALIZE_REQUEST.params.protocolVersion,
};

/** A raw MCP request: initialize without a session id, tools/list with one. */
function mcp(
  headers: Record<string, string>,
  sessionId?: string,
  method: 'POST' | 'GET' | 'DELETE' = 'POST',
): Promise<RawResponse> {
  const body =
    sessionId === undefined
      ? INITIALIZE_REQUEST
      : { jsonrpc: '2.0', id: 2, method: 'tools/list', params: {} };
  return rawRequest(bridge.url, '/mcp', {
    method,
    headers: {
      ...RPC_HEADERS,
      ...headers,
      ...(sessionId === undefined ? {} : { 'Mcp-Session-Id': sessionId }),
    },
    ...(method === 'POST' ? { body: JSON.stringify(body) } : {}),
  });
}

const bearer = (token: string): Record<string, string> => ({ Authorization: `Bearer ${token}` });

/** Opens a session with `token` the raw way and returns its id. */
async function openSession(token: string): Promise<string> {
  const opened = await mcp(bearer(token));
  expect(opened.status).toBe(200);
  return String(opened.headers['mcp-session-id']);
}

function expectRefused(answer: RawResponse, status: 401 | 404, message: RegExp): void {
  expect(answer.status).toBe(status);
  expect(answer.headers['mcp-session-id']).toBeUndefined();
  const rpc = JSON.parse(answer.body) as { jsonrpc: string; error: { message: string } };
  expect(rpc.jsonrpc).toBe('2.0');
  expect(rpc.error.message).toMatch(message);
}

describe('/mcp bearer tokens', () => {
  it('refuses a request without a token, saying where to get one', async () => {
    const sessions = bridge.desktopControl.sessions.size;
    const answer = await mcp({});
    expectRefused(answer, 401, /Missing bearer token.*\/config/);
    expect(answer.headers['www-authenticate']).toMatch(/^Bearer/);
    // Not a bearer header at all.
    expectRefused(
      await mcp({ Authorization: `Basic ${Buffer.from(`admin:${TOKEN}`).toString('base64')}` }),
      401,
      /Missing bearer/,
    );
    await expect(connectClient(bridge, { token: null })).rejects.toThrow();
    expect(bridge.desktopControl.sessions.size).toBe(sessions);
  });

  it('refuses a wrong token', async () => {
    for (const wrong of [
      `${TOKEN}x`,
      TOKEN.slice(0, -1),
      `oc_${randomBytes(32).toString('base64url')}`,
      sha256Hex(TOKEN),
      'x'.repeat(600),
    ]) {
      expectRefused(await mcp(bearer(wrong)), 401, /Wrong bearer token/);
    }
  });

  it('refuses an expired token', async () => {
    const secret = `oc_${randomBytes(32).toString('base64url')}`;
    registerSecret(secret);
    await bridge.access.store.tokens.create({
      id: 'tok_expired',
      personId: bridge.admin.id,
      name: 'expired yesterday',
      tokenHash: sha256Hex(secret),
      hint: tokenHint(secret),
      createdAt: Date.now() - 2 * 86_400_000,
      expiresAt: Date.now() - 86_400_000,
    });
    expectRefused(await mcp(bearer(secret)), 401, /expired on/);
  });

  it('refuses a revoked token at once: its very next call and its open session', async () => {
    const token = await createToken(bridge.session, 'soon revoked');
    const { client } = await connectClient(bridge, { token: token.secret });
    try {
      expect((await client.listTools()).tools.length).toBeGreaterThan(0);
      const sessionsBefore = bridge.desktopControl.sessions.size;
      const revoked = await bridge.session.request(`${API.tokens}/${token.id}`, {
        method: 'DELETE',
      });
      expect(revoked.status).toBe(200);
      // The open session ended with the revocation itself, before anyone called again.
      expect(bridge.desktopControl.sessions.size).toBe(sessionsBefore - 1);
      await expect(client.listTools()).rejects.toThrow();
      // A new session, right away (lookups are cached for a moment: revoking must drop that).
      expectRefused(await mcp(bearer(token.secret)), 401, /revoked/);
    } finally {
      await client.close();
    }
  });

  it("refuses the token of a person an admin disabled, and ends that person's open sessions", async () => {
    const carol = await addPerson(bridge.session, 'carol');
    const token = await createToken(carol.session, "carol's client");
    const { client } = await connectClient(bridge, { token: token.secret });
    try {
      expect((await client.listTools()).tools.length).toBeGreaterThan(0);
      const disabled = await bridge.session.request(`${API.people}/${carol.person.id}`, {
        method: 'PATCH',
        body: { disabled: true },
      });
      expect(disabled.status).toBe(200);
      await expect(client.listTools()).rejects.toThrow();
      expectRefused(await mcp(bearer(token.secret)), 401, /can no longer sign in/);
    } finally {
      await client.close();
    }
  });

  it("refuses token A on token B's MCP session (404, as if it did not exist), and leaves that session alone", async () => {
    const sessionOfA = await openSession(TOKEN);
    for (const method of ['POST', 'GET', 'DELETE'] as const) {
      expectRefused(await mcp(bearer(OTHER_TOKEN), sessionOfA, method), 404, /Session not found/);
    }
    // Another person's token too.
    const dave = await addPerson(bridge.session, 'dave');
    const davesToken = await createToken(dave.session, "dave's client");
    expectRefused(await mcp(bearer(davesToken.secret), sessionOfA), 404, /Session not found/);
    // Session A is still there for A (the foreign DELETE did not end it).
    const own = await mcp(bearer(TOKEN), sessionOfA);
    expect(own.status).toBe(200);
    expect(own.body).toContain('"tools"');
  });

  it("never accepts a browser's sign-in cookie on /mcp, with or without its CSRF token", async () => {
    const sessions = bridge.desktopControl.sessions.size;
    const origin = new URL(bridge.url).origin;
    expectRefused(
      await mcp({ Cookie: bridge.session.cookie, Origin: origin }),
      401,
      /Missing bearer/,
    );
    expectRefused(
      await mcp({
        Cookie: bridge.session.cookie,
        Origin: origin,
        'X-CSRF-Token': bridge.session.csrf,
      }),
      401,
      /Missing bearer/,
    );
    // Nor does a cookie let someone into a session a token opened.
    const sessionOfA = await openSession(TOKEN);
    expectRefused(
      await mcp({ Cookie: bridge.session.cookie, Origin: origin }, sessionOfA),
      401,
      /Missing bearer/,
    );
    expect(bridge.desktopControl.sessions.size).toBe(sessions + 1);
  });
});
