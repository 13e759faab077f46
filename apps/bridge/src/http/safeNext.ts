// Where to go after signing in: only a path on this bridge (one leading slash, no scheme, no
// backslash tricks); anything else goes to the viewer. Keeps sign-in from being an open redirect.
export function safeNext(next: string | undefined): string {
  if (next === undefined || next.length > 2000) return '/';
  if (!next.startsWith('/') || next.startsWith('//') || next.includes('\\')) return '/';
  try {
    const url = new URL(next, 'http://bridge.invalid');
    if (url.origin !== 'http://bridge.invalid') return '/';
    return `${url.pathname}${url.search}${url.hash}`;
  } catch {
    return '/';
  }
}
