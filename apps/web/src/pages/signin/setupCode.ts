// The one-time setup code travels in the link's fragment (`/setup#code=…`): browsers never send
// a fragment to the server, so the code stays out of every access log and proxy on the way.

/** The code in a location hash such as "#code=abc", or null. */
export function setupCodeFromHash(hash: string): string | null {
  const params = new URLSearchParams(hash.startsWith('#') ? hash.slice(1) : hash);
  const code = params.get('code')?.trim() ?? '';
  return code === '' ? null : code;
}
