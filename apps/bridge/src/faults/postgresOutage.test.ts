// A real PostgreSQL stopped for OUTAGE_MS (5 s: long enough for the token cache's 2 s to run
// out and for the audit's retry to back off to its longest wait; the 20 s of the report changes
// only how long the test waits) under a real bridge: every call that returned ok has its audit
// entry afterwards, in order and at its time; desktop input is refused (rate_limited, retry
// after) once the small audit queue is full while screenshots go on; /mcp for a token not seen
// yet or revoked just before (its cached lookup does not stand in), sign-in and /api/me answer
// 503 with words and Retry-After; after the restart the queue is
// written and an audit_outage entry says where the gap was.
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { API } from '@overlay-companion/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ADMIN_PASSWORD,
  ADMIN_USERNAME,
  INITIALIZE_REQUEST,
  OTHER_TOKEN,
  TOKEN,
  connectClient,
  startTestBridge,
  type TestBridge,
} from '../mcp/testing/fixtures.js';
import { ScriptedViewer } from '../mcp/testing/scriptedViewer.js';
import {
  postgresRequired,
  startTestPostgres,
  type TestPostgres,
} from '../store/testing/postgres.js';
import {
  answerCalls,
  auditCaughtUp,
  callUntilInputRefused,
  entriesSince,
  expectEveryCallAudited,
  makeCall,
  outageEntry,
  type CallMade,
} from './testing/outageRun.js';

const OUTAGE_MS = 5_000;
/** Small, so a few calls fill it; input is refused at this many waiting entries. */
const QUEUE = { entries: 10, bytes: 1024 * 1024 };

describe('PostgreSQL stopped under a running bridge', () => {
  let postgres: TestPostgres | { skip: string };
  let bridge: TestBridge | undefined;
  let client: Client | undefined;
  let viewer: ScriptedViewer | undefined;

  beforeAll(async () => {
    postgres = await startTestPostgres();
    if ('skip' in postgres) return;
    bridge = await startTestBridge({
      initialMode: 'autopilot',
      access: { databaseUrl: postgres.url, auditQueue: QUEUE },
    });
    ({ client } = await connectClient(bridge));
    viewer = await ScriptedViewer.connect(bridge);
    answerCalls(viewer);
  }, 60_000);
  afterAll(async () => {
    await client?.close();
    await viewer?.close();
    await bridge?.close();
    if (!('skip' in postgres)) await postgres.stop();
  }, 60_000);

  it('loses no audit entry, refuses input while the queue is full, answers 503 with words', async (ctx) => {
    if ('skip' in postgres) {
      if (postgresRequired()) throw new Error(`PostgreSQL is required here: ${postgres.skip}`);
      ctx.skip(postgres.skip);
      return;
    }
    const { outage } = postgres;
    if (bridge === undefined || client === undefined || outage === undefined) {
      throw new Error('OC_TEST_DATABASE_URL gives a server this test cannot stop');
    }
    const b = bridge;
    const from = Date.now();
    const calls: CallMade[] = [await makeCall(client, 'click_at')];
    expect(calls[0]?.outcome).toBe('ok');
    // A token known moments ago and then revoked: its cached lookup must not stand in later.
    const revokedClient = (await connectClient(b, { token: OTHER_TOKEN })).client;
    await revokedClient.listTools();
    const revoke = await b.session.request(`${API.tokens}/tok_other_test_token`, {
      method: 'DELETE',
    });
    expect(revoke.status).toBe(200);
    await revokedClient.close();

    await outage.begin();
    const began = Date.now();
    calls.push(...(await callUntilInputRefused(client, began + OUTAGE_MS - 1_000)));
    // Past the token cache's 2 s: a token never seen, sign-in and /api/me need the database.
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, began + 2_500 - Date.now())));
    const initialize = (token: string) =>
      fetch(b.mcpUrl, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${token}`,
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
        },
        body: JSON.stringify(INITIALIZE_REQUEST),
      });
    const answers = {
      mcp: await initialize('oc_never-seen-token-0123456789abcdef'),
      mcpRevoked: await initialize(OTHER_TOKEN),
      signIn: await fetch(new URL(API.signIn, b.url), {
        method: 'POST',
        headers: { 'content-type': 'application/json', origin: new URL(b.url).origin },
        body: JSON.stringify({ username: ADMIN_USERNAME, password: ADMIN_PASSWORD }),
      }),
      me: await b.session.request(API.me),
    };
    // The bridge's own token check, asked directly: the revoked token's lookup is gone (it would
    // otherwise stand in, as the known token's does), so it meets the outage.
    await expect(b.access.tokens.authenticate(`Bearer ${OTHER_TOKEN}`)).rejects.toThrow(
      /ECONNREFUSED/,
    );
    expect(await b.access.tokens.authenticate(`Bearer ${TOKEN}`)).toMatchObject({ ok: true });
    // A call from the known token still works on its cached principal, well past 2 s.
    const late = await makeCall(client, 'take_screenshot');
    calls.push(late);
    expect(late.outcome, JSON.stringify(calls.slice(0, 3))).toBe('ok');
    await new Promise((resolve) =>
      setTimeout(resolve, Math.max(0, began + OUTAGE_MS - Date.now())),
    );
    await outage.end();
    const ended = Date.now();

    for (const [name, answer] of Object.entries(answers)) {
      expect(answer.status, name).toBe(503);
      expect(answer.headers.get('retry-after'), name).toBe('5');
      const text = await answer.text();
      expect(text, name).toMatch(/The database is not answering; retry in 5 s\./);
    }

    const refusedInput = calls.filter((c) => c.tool === 'click_at' && c.outcome !== 'ok');
    expect(refusedInput.length).toBeGreaterThanOrEqual(3);
    for (const call of refusedInput) {
      expect(call.outcome).toBe('rate_limited');
      expect(call.retryAfterMs).toBeGreaterThan(0);
      expect(call.message).toMatch(/audit log cannot be written.*Retry in \d+ s/);
    }
    const firstRefusal = calls.indexOf(refusedInput[0] as CallMade);
    expect(
      calls.slice(firstRefusal).some((c) => c.tool === 'take_screenshot' && c.outcome === 'ok'),
    ).toBe(true);

    await auditCaughtUp(b);
    const caughtUp = Date.now();
    const entries = await entriesSince(b, from);
    const ok = expectEveryCallAudited(calls, entries);
    const gap = outageEntry(entries);
    // After every entry of the outage, which it counts.
    expect(entries.at(-1)).toBe(gap);
    const queued = Number(/; (\d+) entries were queued/.exec(gap.detail ?? '')?.[1]);
    expect(queued).toBeGreaterThanOrEqual(calls.length - 1);
    console.info(
      `[faults] PostgreSQL down ${ended - began} ms: ${calls.length} calls, ${ok} ok, ` +
        `${refusedInput.length} input refused; ${entries.filter((e) => e.kind === 'tool_call').length} tool-call entries; ` +
        `${queued} queued, written ${caughtUp - ended} ms after the restart`,
    );

    // And input works again.
    expect((await makeCall(client, 'click_at')).outcome).toBe('ok');
  }, 60_000);
});
