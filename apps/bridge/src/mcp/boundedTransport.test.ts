// The session transport keeps nothing per request once the request has ended: answered in JSON
// or SSE, cancelled by the client, or cut by the session's end. Driven with raw HTTP requests
// against a real McpServer, reading the SDK's own maps (transportBacklog).
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { afterEach, describe, expect, it } from 'vitest';
import { BoundedStreamableHttpTransport, transportBacklog } from './boundedTransport.js';
import { INITIALIZE_REQUEST } from './testing/fixtures.js';

const SESSION = 'session-under-test';
/** About the size of one screenshot answer, so a leak would show in the heap too. */
const BIG_ANSWER = 'x'.repeat(50_000);

interface Opened {
  transport: BoundedStreamableHttpTransport;
  /** Resolves every call of `hang` still waiting, as if its work finally ended. */
  releaseHung: () => void;
  post: (body: unknown) => Promise<Response>;
}

const opened: Opened[] = [];
afterEach(async () => {
  for (const one of opened.splice(0)) await one.transport.close();
});

async function open(mode: 'json' | 'sse'): Promise<Opened> {
  const transport = new BoundedStreamableHttpTransport({
    sessionIdGenerator: () => SESSION,
    enableJsonResponse: mode === 'json',
  });
  const server = new McpServer({ name: 'bounded-transport-test', version: '0' });
  server.registerTool('big', { description: 'answers about 50 KB' }, () => ({
    content: [{ type: 'text', text: BIG_ANSWER }],
  }));
  const hung = new Set<() => void>();
  server.registerTool(
    'hang',
    { description: 'answers only when released' },
    () =>
      new Promise((resolve) => {
        hung.add(() => resolve({ content: [{ type: 'text', text: 'late' }] }));
      }),
  );
  await server.connect(transport);
  const post = (body: unknown): Promise<Response> =>
    transport.handleRequest(
      new Request('http://127.0.0.1/mcp', {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          'mcp-session-id': SESSION,
          'mcp-protocol-version': '2025-06-18',
        },
        body: JSON.stringify(body),
      }),
    );
  expect((await post(INITIALIZE_REQUEST)).status).toBe(200);
  expect((await post({ jsonrpc: '2.0', method: 'notifications/initialized' })).status).toBe(202);
  const one = {
    transport,
    post,
    releaseHung: () => {
      for (const release of hung) release();
      hung.clear();
    },
  };
  opened.push(one);
  return one;
}

const call = (id: number, name: string) => ({
  jsonrpc: '2.0',
  id,
  method: 'tools/call',
  params: { name, arguments: {} },
});

/** The JSON-RPC message of a response in either mode (the last `data:` line of an SSE body). */
async function messageOf(response: Response): Promise<{ id: unknown; error?: { code: number } }> {
  const text = await response.text();
  if (!(response.headers.get('content-type') ?? '').startsWith('text/event-stream')) {
    return JSON.parse(text) as { id: unknown };
  }
  const data = text
    .split('\n')
    .filter((line) => line.startsWith('data: '))
    .at(-1);
  return JSON.parse(data?.slice('data: '.length) ?? 'null') as { id: unknown };
}

const EMPTY = { streams: 0, requests: 0, responses: 0 };

describe.each(['json', 'sse'] as const)('the session transport in %s mode', (mode) => {
  it('holds nothing once each of 200 calls is answered (a 50 KB answer each)', async () => {
    const { transport, post } = await open(mode);
    for (let id = 10; id < 210; id++) {
      const answer = await messageOf(await post(call(id, 'big')));
      expect(answer.id).toBe(id);
      expect(transportBacklog(transport)).toEqual(EMPTY);
    }
  });

  it('holds nothing after 50 calls answered side by side', async () => {
    const { transport, post } = await open(mode);
    const ids = Array.from({ length: 50 }, (_, i) => 300 + i);
    const answers = await Promise.all(
      ids.map(async (id) => messageOf(await post(call(id, 'big')))),
    );
    expect(answers.map((a) => a.id)).toEqual(ids);
    expect(transportBacklog(transport)).toEqual(EMPTY);
  });

  it('ends the POST of a call the client cancels, and keeps nothing of it', async () => {
    const { transport, post, releaseHung } = await open(mode);
    const pending = post(call(7, 'hang'));
    await expect.poll(() => transportBacklog(transport).requests).toBe(1);
    const cancel = await post({
      jsonrpc: '2.0',
      method: 'notifications/cancelled',
      params: { requestId: 7, reason: 'timed out' },
    });
    expect(cancel.status).toBe(202);
    const answer = await messageOf(await pending);
    expect(answer).toMatchObject({ id: 7, error: { code: -32800 } });
    expect(transportBacklog(transport)).toEqual(EMPTY);
    // The handler's late result goes nowhere and leaves nothing behind.
    releaseHung();
    await new Promise((resolve) => setImmediate(resolve));
    expect(transportBacklog(transport)).toEqual(EMPTY);
  });

  it('answers a call still running when the session ends, instead of leaving its POST open', async () => {
    const { transport, post } = await open(mode);
    const pending = post(call(8, 'hang'));
    await expect.poll(() => transportBacklog(transport).requests).toBe(1);
    await transport.close();
    const answer = await messageOf(await pending);
    expect(answer).toMatchObject({ id: 8, error: { code: -32000 } });
  });
});
