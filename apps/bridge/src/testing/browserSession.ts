// Test support: a person signed in to a real bridge over HTTP, the way the web app does it —
// POST /api/auth/signin, keep the cookie, read the CSRF token from GET /api/me — with helpers
// that send requests as that browser (Origin, cookie, CSRF, JSON) and fetch socket tickets.
import { API, CSRF_HEADER, type Me, type TicketSocket } from '@overlay-companion/protocol';
import { registerSecret } from './testLogs.js';

export interface BrowserSession {
  /** The bridge's base URL. */
  url: string;
  /** `name=value` of the sign-in cookie. */
  cookie: string;
  csrf: string;
  me: Me;
  /** A request as this browser; JSON bodies are encoded, state-changing ones carry CSRF. */
  request(
    path: string,
    init?: { method?: string; body?: unknown; headers?: Record<string, string> },
  ): Promise<Response>;
  ticket(socket?: TicketSocket): Promise<string>;
}

/** The bridge's origin, as a page it served would send it. */
export function originOf(baseUrl: string): string {
  return new URL(baseUrl).origin;
}

export async function signIn(
  baseUrl: string,
  username: string,
  password: string,
): Promise<BrowserSession> {
  registerSecret(password);
  const origin = originOf(baseUrl);
  const response = await fetch(new URL(API.signIn, baseUrl), {
    method: 'POST',
    headers: { 'content-type': 'application/json', origin },
    body: JSON.stringify({ username, password }),
  });
  if (!response.ok) throw new Error(`sign-in failed: ${response.status} ${await response.text()}`);
  const setCookie = response.headers.get('set-cookie') ?? '';
  const cookie = /^([^;]+)/.exec(setCookie)?.[1];
  if (cookie === undefined) throw new Error('sign-in answered without a cookie');
  const me = (await response.json()) as Me;
  return sessionFromCookie(baseUrl, cookie, me);
}

/** A BrowserSession for a cookie obtained some other way (e.g. minted in-process). */
export function sessionFromCookie(baseUrl: string, cookie: string, me: Me): BrowserSession {
  registerSecret(cookie.slice(cookie.indexOf('=') + 1), me.csrf_token);
  const origin = originOf(baseUrl);
  const session: BrowserSession = {
    url: baseUrl,
    cookie,
    csrf: me.csrf_token,
    me,
    request: (path, init = {}) => {
      const method = init.method ?? (init.body === undefined ? 'GET' : 'POST');
      const headers: Record<string, string> = { origin, cookie, ...init.headers };
      if (method !== 'GET' && method !== 'HEAD') headers[CSRF_HEADER] ??= session.csrf;
      if (init.body !== undefined) headers['content-type'] ??= 'application/json';
      return fetch(new URL(path, baseUrl), {
        method,
        headers,
        ...(init.body === undefined
          ? {}
          : { body: typeof init.body === 'string' ? init.body : JSON.stringify(init.body) }),
      });
    },
    ticket: async (socket = 'viewer') => {
      const answer = await session.request(API.tickets, { body: { socket } });
      if (!answer.ok) throw new Error(`ticket: ${answer.status} ${await answer.text()}`);
      const { ticket } = (await answer.json()) as { ticket: string };
      registerSecret(ticket);
      return ticket;
    },
  };
  return session;
}
