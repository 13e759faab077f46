// Where to go after signing in: the `next` query parameter of /signin. It comes from the URL, so
// anyone can craft it; only a path on this origin is followed (never `//evil.example`,
// `/\evil.example`, `https://…` or `javascript:`), and never the sign-in pages themselves.
// The bridge's copy of this rule, for the OpenID Connect callback, is bridge/src/http/safeNext.ts.
import { API, PAGES } from '@overlay-companion/protocol';

const FALLBACK = PAGES.viewer;
/** Any base works: only paths that stay on it are accepted. */
const BASE = 'https://bridge.invalid';

/** `raw` when it is a same-origin path starting with a single '/', else '/'. */
export function safeNextPath(raw: string | null | undefined): string {
  if (typeof raw !== 'string' || raw.length === 0 || raw.length > 2000) return FALLBACK;
  if (!raw.startsWith('/') || raw.startsWith('//')) return FALLBACK;
  // Browsers read '\' as '/' in URLs ("/\evil" is "//evil"); control characters and spaces are
  // stripped by the URL parser, so they could hide either trick.
  // eslint-disable-next-line no-control-regex
  if (/[\\\u0000-\u0020\u007f]/.test(raw)) return FALLBACK;
  let url: URL;
  try {
    url = new URL(raw, BASE);
  } catch {
    return FALLBACK;
  }
  if (url.origin !== BASE) return FALLBACK;
  // Checked again after parsing: dot segments (`/.//evil`, `/x/..//evil`, `/%2e//evil`) are
  // resolved away and can leave a path that starts with '//', which the browser would then
  // follow as `//evil` — another host.
  if (url.pathname.startsWith('//')) return FALLBACK;
  if (url.pathname === PAGES.signIn || url.pathname === PAGES.setup) return FALLBACK;
  return `${url.pathname}${url.search}${url.hash}`;
}

/** The sign-in page, asked to come back to `currentPath` afterwards. */
export function signInUrl(currentPath: string): string {
  const next = safeNextPath(currentPath);
  return next === FALLBACK ? PAGES.signIn : `${PAGES.signIn}?next=${encodeURIComponent(next)}`;
}

/** The `next` of a sign-in page's query string, made safe. */
export function nextFromSearch(search: string): string {
  return safeNextPath(new URLSearchParams(search).get('next'));
}

/** Start OpenID Connect sign-in; the bridge brings the browser back to `next` afterwards. */
export function oidcStartUrl(next: string): string {
  const safe = safeNextPath(next);
  return `${API.oidcStart}?next=${encodeURIComponent(safe)}`;
}
