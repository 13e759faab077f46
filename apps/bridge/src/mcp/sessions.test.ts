// /mcp transport, auth and DNS-rebinding guard, against a real bridge on a loopback port with
// the MCP SDK's real client.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { answersInSse } from './sessions.js';
import {
  INITIALIZE_REQUEST as INIT,
  OTHER_TOKEN,
  TOKEN,
  connectClient,
  startTestBridge,
  type TestBridge,
} from './testing/fixtures.js';

function post(
  bridge: TestBridge,
  body: unknown,
  headers: Record<string, string> = {},
): Promise<Response> {
  return fetch(bridge.mcpUrl, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      ...headers,
    },
    body: JSON.stringify(body),
  });
}

describe('/mcp sessions and auth', () => {
  let bridge: TestBridge;
  beforeAll(async () => {
    bridge = await startTestBridge();
  });
  afterAll(async () => {
    await bridge.close();
  });

  it('refuses a request without a token with 401 and a JSON-RPC error that says what to send', async () => {
    const response = await post(bridge, INIT);
    expect(response.status).toBe(401);
    expect(response.headers.get('www-authenticate')).toMatch(/^Bearer/);
    const body = (await response.json()) as { error: { message: string } };
    expect(body.error.message).toMatch(/Authorization: Bearer/);
  });

  it('refuses a wrong token with 401, also through the SDK client', async () => {
    const response = await post(bridge, INIT, { authorization: 'Bearer not-the-token' });
    expect(response.status).toBe(401);
    await expect(connectClient(bridge, { token: 'wrong-token-xxxxxxxxxxxxxxx' })).rejects.toThrow(
      /401|Bearer/,
    );
  });

  it('serves an SDK client with the right token', async () => {
    const { client } = await connectClient(bridge);
    expect(client.getServerVersion()?.name).toBe('overlay-companion');
    await client.close();
  });

  it('binds a session to its token: another valid token gets 404 for it', async () => {
    const { client, transport } = await connectClient(bridge, { token: TOKEN });
    const sessionId = transport.sessionId;
    expect(sessionId).toBeTruthy();
    const hijack = await post(
      bridge,
      { jsonrpc: '2.0', id: 2, method: 'tools/list' },
      {
        authorization: `Bearer ${OTHER_TOKEN}`,
        'mcp-session-id': sessionId ?? '',
        'mcp-protocol-version': '2025-06-18',
      },
    );
    expect(hijack.status).toBe(404);
    // The owner still works.
    await expect(client.listTools()).resolves.toBeDefined();
    await client.close();
  });

  it("answers a session's bad POSTs as the SDK does though the bridge reads the body itself", async () => {
    const { client, transport } = await connectClient(bridge);
    const headers = {
      authorization: `Bearer ${TOKEN}`,
      'mcp-session-id': transport.sessionId ?? '',
      'mcp-protocol-version': '2025-06-18',
      accept: 'application/json, text/event-stream',
    };
    const raw = (body: string, type: string) =>
      fetch(bridge.mcpUrl, {
        method: 'POST',
        headers: { ...headers, 'content-type': type },
        body,
      });
    const broken = await raw('{"jsonrpc":"2.0","id":7,"method":', 'application/json');
    expect(broken.status).toBe(400);
    expect(((await broken.json()) as { error: { code: number } }).error.code).toBe(-32700);
    // Valid JSON under another type: the SDK's Content-Type check still answers first.
    const typed = await raw(
      JSON.stringify({ jsonrpc: '2.0', id: 8, method: 'tools/list' }),
      'text/plain',
    );
    expect(typed.status).toBe(415);
    // The body read ahead is the one the SDK serves.
    const listed = await raw(
      JSON.stringify({ jsonrpc: '2.0', id: 9, method: 'tools/list' }),
      'application/json',
    );
    expect(listed.status).toBe(200);
    const answer = (await listed.json()) as { id: number; result: { tools: unknown[] } };
    expect(answer.id).toBe(9);
    expect(answer.result.tools.length).toBeGreaterThan(10);
    await client.close();
  });

  it('ends a session on DELETE; the ended session then answers 404', async () => {
    const { client, transport } = await connectClient(bridge);
    const sessionId = transport.sessionId ?? '';
    const before = bridge.desktopControl.sessions.size;
    await transport.terminateSession();
    expect(bridge.desktopControl.sessions.size).toBe(before - 1);
    const after = await post(
      bridge,
      { jsonrpc: '2.0', id: 3, method: 'tools/list' },
      {
        authorization: `Bearer ${TOKEN}`,
        'mcp-session-id': sessionId,
        'mcp-protocol-version': '2025-06-18',
      },
    );
    expect(after.status).toBe(404);
    const body = (await after.json()) as { jsonrpc: string; error: { message: string } };
    expect(body.jsonrpc).toBe('2.0');
    expect(body.error.message).toMatch(/Session not found/);
    await client.close().catch(() => undefined);
  });

  it('answers an unknown session id with 404, and a non-initialize without session with 400', async () => {
    const unknown = await post(
      bridge,
      { jsonrpc: '2.0', id: 4, method: 'tools/list' },
      { authorization: `Bearer ${TOKEN}`, 'mcp-session-id': 'no-such-session' },
    );
    expect(unknown.status).toBe(404);
    const missing = await post(
      bridge,
      { jsonrpc: '2.0', id: 5, method: 'tools/list' },
      { authorization: `Bearer ${TOKEN}` },
    );
    expect(missing.status).toBe(400);
  });

  it('refuses a foreign Host or Origin with 403 before authentication', async () => {
    // fetch() will not let us forge Host, so use node:http.
    const { request } = await import('node:http');
    const status = (headers: Record<string, string>): Promise<{ status: number; body: string }> =>
      new Promise((resolve, reject) => {
        const req = request(
          bridge.mcpUrl,
          {
            method: 'POST',
            headers: {
              'content-type': 'application/json',
              authorization: `Bearer ${TOKEN}`,
              ...headers,
            },
          },
          (res) => {
            let body = '';
            res.on('data', (c: Buffer) => (body += c.toString()));
            res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
          },
        );
        req.on('error', reject);
        req.end(JSON.stringify(INIT));
      });
    const evilHost = await status({ host: 'evil.example:80' });
    expect(evilHost.status).toBe(403);
    const message = (text: string): string =>
      (JSON.parse(text) as { error: { message: string } }).error.message;
    expect(message(evilHost.body)).toMatch(/Forbidden Host header "evil\.example:80"/);
    const evilOrigin = await status({ origin: 'http://evil.example' });
    expect(evilOrigin.status).toBe(403);
    expect(message(evilOrigin.body)).toMatch(/Forbidden Origin "http:\/\/evil\.example"/);
    // localhost with the right port is fine when bound to loopback.
    const ok = await status({
      host: `localhost:${bridge.port}`,
      accept: 'application/json, text/event-stream',
    });
    expect(ok.status).toBe(200);
  });

  it('guards /api with the same Host/Origin check', async () => {
    const response = await fetch(new URL('/api/viewer/ticket', bridge.url), {
      method: 'POST',
      headers: { origin: 'http://attacker.example' },
    });
    expect(response.status).toBe(403);
  });

  /** Opens a session with `capabilities`, then returns how it answers a tools/list POST. */
  async function answerTypeFor(capabilities: Record<string, unknown>): Promise<string> {
    const auth = { authorization: `Bearer ${TOKEN}` };
    const opened = await post(bridge, { ...INIT, params: { ...INIT.params, capabilities } }, auth);
    expect(opened.status).toBe(200);
    await opened.text();
    const session = {
      ...auth,
      'mcp-session-id': opened.headers.get('mcp-session-id') ?? '',
      'mcp-protocol-version': '2025-06-18',
    };
    const initialized = await post(
      bridge,
      { jsonrpc: '2.0', method: 'notifications/initialized' },
      session,
    );
    expect(initialized.status).toBe(202);
    const listed = await post(bridge, { jsonrpc: '2.0', id: 7, method: 'tools/list' }, session);
    expect(listed.status).toBe(200);
    const type = listed.headers.get('content-type') ?? '';
    const text = await listed.text();
    expect(text).toContain('draw_overlay'); // the same answer either way
    return type;
  }

  it('answers a client that cannot be asked anything with one JSON body per call', async () => {
    expect(await answerTypeFor({})).toMatch(/^application\/json/);
    expect(await answerTypeFor({ sampling: {}, roots: {} })).toMatch(/^application\/json/);
  });

  it('answers a client that declared elicitation with an SSE stream (approvals ride on it)', async () => {
    expect(await answerTypeFor({ elicitation: {} })).toMatch(/^text\/event-stream/);
  });

  it('keeps nothing of a call once it is answered: 100 calls leave the transport empty', async () => {
    const { client } = await connectClient(bridge);
    for (let i = 0; i < 50; i++) {
      await client.listTools();
      // Refused by its schema before any viewer is asked: a tool call answered at once.
      await client.callTool({ name: 'draw_overlay', arguments: { x: 'not a number' } });
    }
    expect(bridge.desktopControl.sessions.backlog()).toEqual({
      streams: 0,
      requests: 0,
      responses: 0,
    });
    await client.close();
  });
});

describe('answersInSse', () => {
  const init = (capabilities: unknown) => ({ ...INIT, params: { ...INIT.params, capabilities } });
  it('keeps SSE only for clients the bridge may send a request to (elicitation)', () => {
    expect(answersInSse(init({ elicitation: {} }))).toBe(true);
    expect(answersInSse(init({ elicitation: { form: {} }, sampling: {} }))).toBe(true);
    expect(answersInSse(init({}))).toBe(false);
    expect(answersInSse(init({ sampling: {}, roots: { listChanged: true } }))).toBe(false);
  });
  it('falls back to SSE (which carries everything) when the initialize is odd', () => {
    expect(answersInSse(undefined)).toBe(true);
    expect(answersInSse('initialize')).toBe(true);
  });
});
