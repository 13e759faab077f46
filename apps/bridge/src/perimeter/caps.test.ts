// Exhaustion attacks, against a real bridge: opening MCP sessions until the cap per token and
// the cap per person, opening desktop tunnels until the cap per person (real tunnels to a real
// desktop, Xvnc behind the real gateway, so they stay open), and asking for socket tickets until
// the per-person limit. Each refusal must say when or how to retry, and one person (or token)
// hitting a cap must leave everyone else able to work.
import { API, type ApiError } from '@overlay-companion/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_SESSIONS_PER_PERSON, MAX_SESSIONS_PER_TOKEN } from '../mcp/sessions.js';
import { OTHER_TOKEN, TOKEN, startTestBridge, type TestBridge } from '../mcp/testing/fixtures.js';
import { TunnelClient } from '../testing/tunnelClient.js';
import { MAX_TUNNELS_PER_PERSON } from './socketTickets.js';
import { startTestDesktop, type TestDesktop } from './testing/desktop.js';
import {
  MCP_RPC_HEADERS,
  initializeMcp,
  rawRequest,
  tryUpgrade,
  tunnelPath,
  type RawResponse,
} from './testing/http.js';
import { addPerson, createToken } from './testing/people.js';

let desktop: TestDesktop;
let bridge: TestBridge;

beforeAll(async () => {
  desktop = await startTestDesktop();
  bridge = await startTestBridge({ desktop: desktop.target });
});

afterAll(async () => {
  await bridge?.close();
  await desktop?.stop();
});

function initialize(token: string): Promise<RawResponse> {
  return initializeMcp(bridge.url, token);
}

async function openSessions(token: string, count: number): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < count; i += 1) {
    const opened = await initialize(token);
    expect(opened.status, `session ${i + 1}`).toBe(200);
    ids.push(String(opened.headers['mcp-session-id']));
  }
  return ids;
}

function endSession(token: string, sessionId: string): Promise<RawResponse> {
  return rawRequest(bridge.url, '/mcp', {
    method: 'DELETE',
    headers: { ...MCP_RPC_HEADERS, Authorization: `Bearer ${token}`, 'Mcp-Session-Id': sessionId },
  });
}

function expectCapped(answer: RawResponse, message: RegExp): void {
  expect(answer.status).toBe(429);
  expect(answer.headers['mcp-session-id']).toBeUndefined();
  expect(Number(answer.headers['retry-after'])).toBeGreaterThan(0);
  const error = (JSON.parse(answer.body) as { error: { message: string } }).error.message;
  expect(error).toMatch(message);
  // What to do about it.
  expect(error).toMatch(/DELETE \/mcp with their mcp-session-id/);
}

describe('caps', () => {
  it('caps concurrent MCP sessions per token: 429 with Retry-After and what to do; other tokens unaffected', async () => {
    const ids = await openSessions(TOKEN, MAX_SESSIONS_PER_TOKEN);
    expectCapped(
      await initialize(TOKEN),
      new RegExp(`already has ${MAX_SESSIONS_PER_TOKEN} open MCP sessions`),
    );
    // Another token (of the same person) still gets a session.
    const other = await openSessions(OTHER_TOKEN, 1);
    // Ending one of the first token's sessions makes room for exactly one more.
    expect((await endSession(TOKEN, ids[0] ?? '')).status).toBe(200);
    await openSessions(TOKEN, 1);
    expect((await initialize(TOKEN)).status).toBe(429);
    expect(other).toHaveLength(1);
  });

  it("caps concurrent MCP sessions per person across all their tokens, leaving other people's alone", async () => {
    const bob = await addPerson(bridge.session, 'bob');
    const tokens = [];
    for (const name of ['first', 'second', 'third'])
      tokens.push((await createToken(bob.session, name)).secret);
    const [first = '', second = '', third = ''] = tokens;
    await openSessions(first, MAX_SESSIONS_PER_TOKEN);
    await openSessions(second, MAX_SESSIONS_PER_PERSON - MAX_SESSIONS_PER_TOKEN);
    expectCapped(
      await initialize(third),
      new RegExp(`person's tokens already have ${MAX_SESSIONS_PER_PERSON} open MCP sessions`),
    );
    const carol = await addPerson(bridge.session, 'carol');
    const carolsToken = await createToken(carol.session, "carol's client");
    expect((await initialize(carolsToken.secret)).status).toBe(200);
  });

  it("caps a person's open desktop tunnels: the next is refused with 429, another person still connects", async () => {
    const tunnels: TunnelClient[] = [];
    try {
      for (let i = 0; i < MAX_TUNNELS_PER_PERSON; i += 1) {
        const tunnel = await TunnelClient.open(bridge.url, await bridge.session.ticket('tunnel'));
        tunnels.push(tunnel);
        await tunnel.waitForOpcode('ready');
      }
      expect(bridge.access.sockets.count(bridge.admin.id, 'tunnel')).toBe(MAX_TUNNELS_PER_PERSON);
      const refused = await tryUpgrade(
        bridge.url,
        tunnelPath(await bridge.session.ticket('tunnel')),
        {
          protocol: 'guacamole',
        },
      );
      expect(refused.status).toBe(429);
      expect(refused.body).toMatch(
        new RegExp(`${MAX_TUNNELS_PER_PERSON} desktop connections open.*Close a viewer window`),
      );

      const dave = await addPerson(bridge.session, 'dave', { grant: 'view' });
      const daves = await TunnelClient.open(bridge.url, await dave.session.ticket('tunnel'));
      tunnels.push(daves);
      await daves.waitForOpcode('ready');
      expect(daves.isOpen).toBe(true);
    } finally {
      for (const tunnel of tunnels) await tunnel.close();
    }
  });

  it('limits ticket issuance per person, with when to retry, without affecting another person', async () => {
    const greedy = await addPerson(bridge.session, 'greedy', { grant: 'view' });
    const patient = await addPerson(bridge.session, 'patient', { grant: 'view' });
    let refusal: Response | undefined;
    for (let asked = 0; asked < 200 && refusal === undefined; asked += 1) {
      const answer = await greedy.session.request(API.tickets, { body: { socket: 'viewer' } });
      if (answer.status === 429) refusal = answer;
      else expect(answer.status).toBe(200);
    }
    if (refusal === undefined)
      throw new Error('200 tickets in a row were issued: no per-person limit');
    const error = (await refusal.json()) as ApiError;
    expect(error.retry_after_ms).toBeGreaterThan(0);
    expect(Number(refusal.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(error.error).toMatch(/retry in|wait/);
    // Someone else is not held back by it.
    const other = await patient.session.request(API.tickets, { body: { socket: 'viewer' } });
    expect(other.status).toBe(200);
  });
});
