// Where to go after signing in: only a path on this bridge (one leading slash, no scheme, no
// backslash tricks); anything else goes to the viewer. Keeps sign-in from being an open redirect.
// The viewer's copy of this rule, for /signin?next=, is web/src/net/nextPath.ts.
const BASE = 'http://bridge.invalid';

export function safeNext(next: string | undefined): string {
  if (next === undefined || next.length === 0 || next.length > 2000) return '/';
  if (!next.startsWith('/') || next.startsWith('//')) return '/';
  // Browsers read '\' as '/' ("/\evil" is "//evil"), and the URL parser drops tabs, newlines and
  // other control characters, which could hide either trick.
  // eslint-disable-next-line no-control-regex
  if (/[\\\u0000-\u0020\u007f]/.test(next)) return '/';
  let url: URL;
  try {
    url = new URL(next, BASE);
  } catch {
    return '/';
  }
  if (url.origin !== BASE) return '/';
  // Checked again after parsing: resolving dot segments (`/.//evil`, `/x/..//evil`,
  // `/%2e//evil`) can leave a path starting with '//', which a browser follows to another host.
  if (url.pathname.startsWith('//')) return '/';
  return `${url.pathname}${url.search}${url.hash}`;
}
