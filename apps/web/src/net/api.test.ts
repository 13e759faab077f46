// The API client against a fake fetch (the real bridge's /api lands separately; the e2e suite
// drives the two together): JSON and CSRF on changes, answer parsing, the ApiError mapping,
// the 401 redirect, and the one CSRF retry after a 403.
import {
  API,
  CSRF_HEADER,
  TicketRequest,
  TicketResponse,
  TokenList,
  defaultPermissions,
} from '@overlay-companion/protocol';
import { describe, expect, it } from 'vitest';
import { AnyAnswer, ApiRequestError, createApiClient, type ApiClientOptions } from './api.js';
import { fetchTicket, ticketRequest } from './tickets.js';
import { parseDesktopParam } from '../viewport/urlViewport.js';

interface SeenRequest {
  method: string;
  path: string;
  headers: Record<string, string>;
  body: unknown;
}

type Handler = (request: SeenRequest, seen: SeenRequest[]) => Response | Promise<Response>;

function json(status: number, body: unknown, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(body), {
    status,
    headers: { 'Content-Type': 'application/json', ...headers },
  });
}

function meBody(csrf: string) {
  return {
    person: {
      id: 'p1',
      username: 'ada',
      display_name: 'Ada',
      role: 'admin',
      disabled: false,
      created_at: 1,
      has_password: true,
      oidc_linked: false,
    },
    permissions: defaultPermissions(),
    csrf_token: csrf,
    session: { expires_at: 2, idle_timeout_ms: 3, method: 'password' },
  };
}

/** Fake of the bridge's HTTP side: records every request and answers through `handler`. */
function fakeBridge(handler: Handler, options: Omit<ApiClientOptions, 'fetch'> = {}) {
  const seen: SeenRequest[] = [];
  const navigations: string[] = [];
  const client = createApiClient({
    currentPath: () => '/audit?kind=stop',
    navigate: (url) => navigations.push(url),
    ...options,
    fetch: async (input, init) => {
      const headers = { ...(init.headers as Record<string, string>) };
      const request: SeenRequest = {
        method: init.method ?? 'GET',
        path: input,
        headers,
        body: typeof init.body === 'string' ? (JSON.parse(init.body) as unknown) : undefined,
      };
      seen.push(request);
      return handler(request, seen);
    },
  });
  return { client, seen, navigations };
}

const emptyTokens = { tokens: [] };

describe('api client', () => {
  it('GETs without a body or CSRF header and parses the answer with the schema', async () => {
    const { client, seen } = fakeBridge(() => json(200, emptyTokens));
    await expect(client.get(API.tokens, TokenList)).resolves.toEqual(emptyTokens);
    expect(seen).toHaveLength(1);
    expect(seen[0]).toMatchObject({ method: 'GET', path: API.tokens, body: undefined });
    expect(seen[0]?.headers[CSRF_HEADER]).toBeUndefined();
  });

  it('sends changes as JSON with the CSRF token read once from /api/me', async () => {
    const { client, seen } = fakeBridge((request) =>
      request.path === API.me ? json(200, meBody('csrf-token-0123456789')) : json(200, {}),
    );
    await client.post(API.tokens, { name: 'laptop' }, AnyAnswer);
    await client.del(`${API.tokens}/t1`, undefined, AnyAnswer);
    expect(seen.map((r) => `${r.method} ${r.path}`)).toEqual([
      'GET /api/me',
      'POST /api/tokens',
      'DELETE /api/tokens/t1',
    ]);
    for (const change of seen.slice(1)) {
      expect(change.headers['Content-Type']).toBe('application/json');
      expect(change.headers[CSRF_HEADER]).toBe('csrf-token-0123456789');
    }
    expect(seen[1]?.body).toEqual({ name: 'laptop' });
    // No body still means a JSON body: the bridge answers 415 otherwise.
    expect(seen[2]?.body).toEqual({});
  });

  it('re-reads the CSRF token after a 403 and retries once with the new one', async () => {
    let csrf = 'csrf-old-0123456789';
    const { client, seen } = fakeBridge((request) => {
      if (request.path === API.me) return json(200, meBody(csrf));
      if (request.headers[CSRF_HEADER] !== 'csrf-new-0123456789') {
        csrf = 'csrf-new-0123456789'; // the session was renewed in another tab
        return json(403, { error: 'The CSRF token is missing or wrong; reload the page.' });
      }
      return json(200, { ok: true });
    });
    await expect(client.put(API.myPassword, { x: 1 }, AnyAnswer)).resolves.toEqual({ ok: true });
    expect(seen.map((r) => `${r.method} ${r.path} ${r.headers[CSRF_HEADER] ?? ''}`)).toEqual([
      'GET /api/me ',
      'PUT /api/me/password csrf-old-0123456789',
      'GET /api/me ',
      'PUT /api/me/password csrf-new-0123456789',
    ]);
  });

  it('does not retry a 403 when the token did not change (a real refusal)', async () => {
    const { client, seen } = fakeBridge((request) =>
      request.path === API.me
        ? json(200, meBody('csrf-same-0123456789'))
        : json(403, { error: 'Only admins can add people.' }),
    );
    const error = await client.post(API.people, {}, AnyAnswer).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ApiRequestError);
    expect(error).toMatchObject({ status: 403, message: 'Only admins can add people.' });
    expect(seen.filter((r) => r.method === 'POST')).toHaveLength(1);
  });

  it('turns an ApiError answer into ApiRequestError with status, retry_after_ms and field', async () => {
    const { client } = fakeBridge(() =>
      json(429, { error: 'Too many tickets.', retry_after_ms: 4000, field: 'socket' }),
    );
    const error = await client.get(API.audit, AnyAnswer).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ApiRequestError);
    expect(error).toMatchObject({
      status: 429,
      retryAfterMs: 4000,
      field: 'socket',
      message: 'Too many tickets.',
    });
  });

  it('falls back to the Retry-After header and explains answers that are not ApiError', async () => {
    const { client } = fakeBridge(
      () =>
        new Response('<html>Bad gateway</html>', { status: 502, headers: { 'Retry-After': '3' } }),
    );
    const error = await client.get(API.audit, AnyAnswer).catch((e: unknown) => e);
    expect(error).toMatchObject({ status: 502, retryAfterMs: 3000 });
    expect((error as Error).message).toContain('HTTP 502');
    expect((error as Error).message).toContain("bridge's log");
  });

  it('reports a malformed answer clearly, naming where it does not fit', async () => {
    const { client } = fakeBridge(() => json(200, { tokens: [{ name: 7 }] }));
    const error = await client.get(API.tokens, TokenList).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ApiRequestError);
    const message = (error as Error).message;
    expect(message).toContain('GET /api/tokens');
    expect(message).toContain('tokens.0.');
    expect(message).toContain('Reload the page');

    const notJson = fakeBridge(() => new Response('ok', { status: 200 }));
    await expect(notJson.client.get(API.tokens, TokenList)).rejects.toThrow('it is not JSON');
  });

  it('reports an unreachable bridge as status 0 with what to check', async () => {
    const { client } = fakeBridge(() => {
      throw new TypeError('Failed to fetch');
    });
    const error = await client.get(API.audit, AnyAnswer).catch((e: unknown) => e);
    expect(error).toMatchObject({ status: 0 });
    expect((error as Error).message).toContain('cannot be reached (Failed to fetch)');
  });

  it('on 401 sends the browser to the sign-in page with the current path as next', async () => {
    const { client, navigations } = fakeBridge(() => json(401, { error: 'Sign in first.' }));
    const error = await client.get(API.audit, AnyAnswer).catch((e: unknown) => e);
    expect(error).toMatchObject({ status: 401 });
    expect(navigations).toEqual([`/signin?next=${encodeURIComponent('/audit?kind=stop')}`]);
  });

  it('the public client shows a 401 instead of following it and sends no CSRF token', async () => {
    const { client, seen, navigations } = fakeBridge(
      () => json(401, { error: 'Wrong username or password.' }),
      { signedIn: false },
    );
    await expect(
      client.post(API.signIn, { username: 'a', password: 'b' }, AnyAnswer),
    ).rejects.toThrow('Wrong username or password.');
    expect(navigations).toEqual([]);
    expect(seen).toHaveLength(1);
    expect(seen[0]?.headers[CSRF_HEADER]).toBeUndefined();
    expect(seen[0]?.headers['Content-Type']).toBe('application/json');
  });

  it('shares one /api/me read, forgets a failed one and re-reads on refresh', async () => {
    let fail = true;
    const { client, seen } = fakeBridge(() => {
      if (fail) return json(500, { error: 'Database unavailable.' });
      return json(200, meBody('csrf-token-0123456789'));
    });
    await expect(client.me()).rejects.toThrow('Database unavailable.');
    fail = false;
    const [a, b] = await Promise.all([client.me(), client.me()]);
    expect(a).toBe(b);
    expect(seen).toHaveLength(2);
    await client.me({ refresh: true });
    expect(seen).toHaveLength(3);
  });
});

describe('fetchTicket', () => {
  it('POSTs the socket kind and returns the ticket', async () => {
    const { client, seen } = fakeBridge((request) =>
      request.path === API.me
        ? json(200, meBody('csrf-token-0123456789'))
        : json(200, { ticket: 'tk-1', expires_at: 5 }),
    );
    await expect(fetchTicket('tunnel', client)).resolves.toBe('tk-1');
    expect(seen[1]).toMatchObject({
      method: 'POST',
      path: API.tickets,
      body: { socket: 'tunnel' },
    });
    expect(TicketResponse.safeParse({ ticket: 'tk-1', expires_at: 5 }).success).toBe(true);
  });

  it("names the window's desktop for the tunnel and the AI link, never for the overlay feed", async () => {
    const { client, seen } = fakeBridge((request) =>
      request.path === API.me
        ? json(200, meBody('csrf-token-0123456789'))
        : json(200, { ticket: 'tk-1', expires_at: 5 }),
    );
    const desktop = parseDesktopParam('?vx=0&vy=0&vw=10&vh=10&desktop=dsk_studio');
    await fetchTicket('tunnel', client, desktop);
    await fetchTicket('viewer', client, desktop);
    await fetchTicket('overlays', client, desktop);
    await fetchTicket('viewer', client, parseDesktopParam(''));
    expect(seen.filter((r) => r.path === API.tickets).map((r) => r.body)).toEqual([
      { socket: 'tunnel', desktop: 'dsk_studio' },
      { socket: 'viewer', desktop: 'dsk_studio' },
      { socket: 'overlays' },
      { socket: 'viewer' },
    ]);
    expect(ticketRequest('viewer', desktop)).toEqual(TicketRequest.parse(seen[2]?.body));
  });

  it('asks for no ticket when the address names no usable desktop, and says why', async () => {
    const { client, seen } = fakeBridge(() => json(200, meBody('csrf-token-0123456789')));
    const error = await fetchTicket('tunnel', client, parseDesktopParam('?desktop=../etc')).catch(
      (e: unknown) => e,
    );
    expect(String(error)).toMatch(
      /Could not get a ticket to connect the remote desktop: .*desktop "..\/etc", which is not a desktop id/,
    );
    expect(seen.filter((r) => r.path === API.tickets)).toEqual([]);
  });

  it('says what could not connect and keeps the wait the bridge asked for', async () => {
    const { client } = fakeBridge((request) =>
      request.path === API.me
        ? json(200, meBody('csrf-token-0123456789'))
        : json(429, { error: 'Too many tickets; wait a moment.', retry_after_ms: 2500 }),
    );
    const error = await fetchTicket('viewer', client).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ApiRequestError);
    expect(error).toMatchObject({
      status: 429,
      retryAfterMs: 2500,
      message: 'Could not get a ticket to connect the AI link: Too many tickets; wait a moment.',
    });
  });
});
