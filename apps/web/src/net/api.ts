// The web app's one HTTP client for the bridge's /api: sends JSON (state-changing requests carry
// the CSRF token from GET /api/me), parses every answer with the protocol's schema, and turns
// every refusal into an ApiRequestError that keeps the bridge's sentence, the status,
// retry_after_ms and the field at fault. A 401 sends the browser to the sign-in page, which brings
// it back here afterwards. A 403 on a state-changing request re-reads the CSRF token once (the
// session may have been renewed in another tab) and retries only when the token changed.
import { API, ApiError, CSRF_HEADER, Me } from '@overlay-companion/protocol';
import { signInUrl } from './nextPath.js';

/** What the client needs of a schema: zod's safeParse (kept structural; any zod schema fits). */
export interface AnswerSchema<T> {
  safeParse(
    data: unknown,
  ): { success: true; data: T } | { success: false; error: { issues: readonly AnswerIssue[] } };
}

interface AnswerIssue {
  readonly path: readonly PropertyKey[];
  readonly message: string;
}

/**
 * For answers the page does not read (the contract names no body for them): any JSON, or
 * nothing. Pages reload what they show with a GET that is parsed strictly.
 */
export const AnyAnswer: AnswerSchema<unknown> = {
  safeParse: (data) => ({ success: true, data }),
};

export interface ApiErrorDetails {
  /** HTTP status; 0 when the bridge could not be reached at all. */
  status: number;
  retryAfterMs?: number | undefined;
  /** The request body field at fault, when the bridge named one. */
  field?: string | undefined;
}

/** A request the bridge refused, could not be reached for, or answered in an unknown shape. */
export class ApiRequestError extends Error {
  override readonly name = 'ApiRequestError';
  readonly status: number;
  readonly retryAfterMs: number | undefined;
  readonly field: string | undefined;

  constructor(message: string, details: ApiErrorDetails) {
    super(message);
    this.status = details.status;
    this.retryAfterMs = details.retryAfterMs;
    this.field = details.field;
  }
}

type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

export interface ApiClient {
  get<T>(path: string, schema: AnswerSchema<T>): Promise<T>;
  /** `body` is sent as JSON; undefined sends `{}` (the bridge wants a JSON body on every change). */
  post<T>(path: string, body: unknown, schema: AnswerSchema<T>): Promise<T>;
  put<T>(path: string, body: unknown, schema: AnswerSchema<T>): Promise<T>;
  patch<T>(path: string, body: unknown, schema: AnswerSchema<T>): Promise<T>;
  del<T>(path: string, body: unknown, schema: AnswerSchema<T>): Promise<T>;
  /**
   * The signed-in person (GET /api/me), read once and shared by every caller; `refresh` reads it
   * again (after changing one's permissions, say). Also the source of the CSRF token.
   */
  me(options?: { refresh?: boolean }): Promise<Me>;
}

export interface ApiClientOptions {
  /** The fetch to use (a fake in tests); the browser's own by default. */
  fetch?: (input: string, init: RequestInit) => Promise<Response>;
  /**
   * True (default) for the signed-in pages: changes carry the CSRF token and a 401 goes to the
   * sign-in page. False for the public sign-in and setup pages, where a 401 is an answer to show.
   */
  signedIn?: boolean;
  /** Path and query of the current page, for the sign-in page's `next`. */
  currentPath?: () => string;
  /** Leave for another page (location.assign in the browser). */
  navigate?: (url: string) => void;
}

/** "/api/tokens: email.0: expected string" — which part of an answer did not fit. */
function describeIssues(issues: readonly AnswerIssue[]): string {
  return issues
    .slice(0, 3)
    .map((issue) => {
      const where = issue.path.map(String).join('.');
      return where === '' ? issue.message : `${where}: ${issue.message}`;
    })
    .join('; ');
}

/** Retry-After in seconds (the header), for a 429 whose body did not say. */
function retryAfterHeader(response: Response): number | undefined {
  const value = response.headers.get('Retry-After');
  if (value === null || !/^\d+$/.test(value.trim())) return undefined;
  return Number(value.trim()) * 1000;
}

async function readJson(response: Response): Promise<{ ok: true; body: unknown } | { ok: false }> {
  const text = await response.text().catch(() => '');
  if (text.trim() === '') return { ok: true, body: undefined };
  try {
    return { ok: true, body: JSON.parse(text) as unknown };
  } catch {
    return { ok: false };
  }
}

export function createApiClient(options: ApiClientOptions = {}): ApiClient {
  const signedIn = options.signedIn ?? true;
  const doFetch = options.fetch ?? ((input, init) => globalThis.fetch(input, init));
  const currentPath =
    options.currentPath ?? (() => `${window.location.pathname}${window.location.search}`);
  const navigate = options.navigate ?? ((url: string) => window.location.assign(url));
  let mePromise: Promise<Me> | null = null;

  async function send(method: Method, path: string, body: unknown, csrf: string | null) {
    const headers: Record<string, string> = { Accept: 'application/json' };
    const init: RequestInit = { method, headers, credentials: 'same-origin', cache: 'no-store' };
    if (method !== 'GET') {
      headers['Content-Type'] = 'application/json';
      init.body = JSON.stringify(body ?? {});
      if (csrf !== null) headers[CSRF_HEADER] = csrf;
    }
    try {
      return await doFetch(path, init);
    } catch (thrown) {
      throw new ApiRequestError(
        `The bridge cannot be reached (${thrown instanceof Error ? thrown.message : String(thrown)}). Check that it is running and that this computer is online, then try again.`,
        { status: 0 },
      );
    }
  }

  /** The refusal in `response` as an ApiRequestError (after the 401 redirect, if any). */
  async function refusal(method: Method, path: string, response: Response) {
    const read = await readJson(response);
    const parsed = read.ok ? ApiError.safeParse(read.body) : null;
    if (response.status === 401 && signedIn) {
      navigate(signInUrl(currentPath()));
      return new ApiRequestError(
        parsed?.success
          ? `${parsed.data.error} Opening the sign-in page…`
          : 'You are not signed in (or your session ended). Opening the sign-in page…',
        { status: 401 },
      );
    }
    if (parsed?.success) {
      return new ApiRequestError(parsed.data.error, {
        status: response.status,
        retryAfterMs: parsed.data.retry_after_ms ?? retryAfterHeader(response),
        field: parsed.data.field,
      });
    }
    const statusText = response.statusText === '' ? '' : ` ${response.statusText}`;
    return new ApiRequestError(
      `The bridge answered ${method} ${path} with HTTP ${response.status}${statusText} and no explanation. Try again; if it keeps happening, look at the bridge's log.`,
      { status: response.status, retryAfterMs: retryAfterHeader(response) },
    );
  }

  async function answer<T>(
    method: Method,
    path: string,
    response: Response,
    schema: AnswerSchema<T>,
  ) {
    const read = await readJson(response);
    const parsed = read.ok ? schema.safeParse(read.body) : null;
    if (parsed?.success) return parsed.data;
    const why = parsed ? describeIssues(parsed.error.issues) : 'it is not JSON';
    throw new ApiRequestError(
      `The bridge's answer to ${method} ${path} is not what this page expects (${why}). Reload the page; if it keeps happening, the bridge and this page come from different versions.`,
      { status: response.status },
    );
  }

  async function request<T>(
    method: Method,
    path: string,
    body: unknown,
    schema: AnswerSchema<T>,
  ): Promise<T> {
    const changes = method !== 'GET';
    const csrf = changes && signedIn ? (await me()).csrf_token : null;
    let response = await send(method, path, body, csrf);
    if (response.status === 403 && csrf !== null) {
      // A stale token (the session was renewed elsewhere) looks like any other 403; a fresh read
      // tells them apart: retry once only if the token changed.
      const fresh = await me({ refresh: true }).catch(() => null);
      if (fresh !== null && fresh.csrf_token !== csrf) {
        response = await send(method, path, body, fresh.csrf_token);
      }
    }
    if (!response.ok) throw await refusal(method, path, response);
    return answer(method, path, response, schema);
  }

  function me(meOptions: { refresh?: boolean } = {}): Promise<Me> {
    if (mePromise === null || meOptions.refresh === true) {
      const loading = request('GET', API.me, undefined, Me);
      mePromise = loading;
      // A failed read is not kept: the next caller asks again.
      loading.catch(() => {
        if (mePromise === loading) mePromise = null;
      });
    }
    return mePromise;
  }

  return {
    get: (path, schema) => request('GET', path, undefined, schema),
    post: (path, body, schema) => request('POST', path, body, schema),
    put: (path, body, schema) => request('PUT', path, body, schema),
    patch: (path, body, schema) => request('PATCH', path, body, schema),
    del: (path, body, schema) => request('DELETE', path, body, schema),
    me,
  };
}

/** The signed-in pages' client (viewer and console). */
export const api: ApiClient = createApiClient();

/** The public pages' client (sign-in, setup): no CSRF token, and a 401 is shown, not followed. */
export const publicApi: ApiClient = createApiClient({ signedIn: false });
