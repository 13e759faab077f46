// Test support: a tiny browser made of fetch, for driving the OpenID Connect flow at the HTTP
// level — a cookie jar per host name (ports ignored, as browsers do), redirects followed by hand
// (303, and 302 after a POST, become GET), forms posted url-encoded. It does not model SameSite:
// every cookie whose path matches goes with every request. What SameSite does to the flow is
// what the Chromium test (oidc.browser.test.ts) shows.

interface StoredCookie {
  value: string;
  path: string;
}

export interface Visit {
  /** Where the chain ended (or the URL it stopped before fetching). */
  url: URL;
  /** 0 when stopped before fetching `url`. */
  status: number;
  body: string;
  headers: Headers;
}

export interface NavigateOptions {
  method?: 'GET' | 'POST';
  form?: Record<string, string>;
  /** Stop before fetching a URL this matches (to keep a callback URL for later). */
  stopBefore?: (url: URL) => boolean;
}

const MAX_REDIRECTS = 20;

export class FetchBrowser {
  private readonly jar = new Map<string, Map<string, StoredCookie>>();

  /** The value of a cookie this browser holds for `host`, if any. */
  cookie(host: string, name: string): string | undefined {
    return this.jar.get(host)?.get(name)?.value;
  }

  /** Every cookie value held, for checks that none of them leaked. */
  cookieValues(): string[] {
    return [...this.jar.values()].flatMap((cookies) => [...cookies.values()].map((c) => c.value));
  }

  async navigate(start: string | URL, options: NavigateOptions = {}): Promise<Visit> {
    let url = new URL(start);
    let method = options.method ?? 'GET';
    let body: string | undefined =
      options.form === undefined ? undefined : new URLSearchParams(options.form).toString();
    for (let hop = 0; hop <= MAX_REDIRECTS; hop += 1) {
      if (options.stopBefore?.(url) === true) {
        return { url, status: 0, body: '', headers: new Headers() };
      }
      const headers: Record<string, string> = {};
      const cookies = this.cookieHeader(url);
      if (cookies !== '') headers.cookie = cookies;
      if (body !== undefined) {
        headers['content-type'] = 'application/x-www-form-urlencoded';
        headers.origin = url.origin;
      }
      const response = await fetch(url, {
        method,
        headers,
        redirect: 'manual',
        ...(body === undefined ? {} : { body }),
      });
      this.store(url, response.headers.getSetCookie());
      const location = response.headers.get('location');
      if (response.status >= 300 && response.status < 400 && location !== null) {
        await response.body?.cancel();
        url = new URL(location, url);
        if (
          response.status === 303 ||
          ((response.status === 301 || response.status === 302) && method === 'POST')
        ) {
          method = 'GET';
          body = undefined;
        }
        continue;
      }
      return {
        url,
        status: response.status,
        body: await response.text(),
        headers: response.headers,
      };
    }
    throw new Error(`more than ${MAX_REDIRECTS} redirects from ${String(start)}`);
  }

  private cookieHeader(url: URL): string {
    const cookies = this.jar.get(url.hostname);
    if (cookies === undefined) return '';
    return [...cookies]
      .filter(
        ([, c]) =>
          url.pathname === c.path ||
          url.pathname.startsWith(c.path.endsWith('/') ? c.path : `${c.path}/`),
      )
      .map(([name, c]) => `${name}=${c.value}`)
      .join('; ');
  }

  private store(url: URL, setCookies: string[]): void {
    for (const line of setCookies) {
      const [pair = '', ...attributes] = line.split(';').map((part) => part.trim());
      const eq = pair.indexOf('=');
      if (eq <= 0) continue;
      const name = pair.slice(0, eq);
      const value = pair.slice(eq + 1);
      let path = '/';
      let expired = false;
      for (const attribute of attributes) {
        const [key = '', val = ''] = attribute.split('=');
        if (key.toLowerCase() === 'path') path = val;
        if (key.toLowerCase() === 'max-age' && Number(val) <= 0) expired = true;
        if (key.toLowerCase() === 'expires' && Date.parse(val) <= Date.now()) expired = true;
      }
      const cookies = this.jar.get(url.hostname) ?? new Map<string, StoredCookie>();
      this.jar.set(url.hostname, cookies);
      if (expired) cookies.delete(name);
      else cookies.set(name, { value, path });
    }
  }
}

/** The `action` of the first form on a page that posts to a path ending in `suffix`. */
export function formAction(page: Visit, suffix: string): URL | undefined {
  for (const match of page.body.matchAll(/<form[^>]*action="([^"]+)"/g)) {
    const action = match[1]?.replace(/&#(\d+);/g, (_, code: string) =>
      String.fromCharCode(Number(code)),
    );
    if (action !== undefined && new URL(action, page.url).pathname.endsWith(suffix)) {
      return new URL(action, page.url);
    }
  }
  return undefined;
}
