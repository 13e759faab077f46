// Which bind addresses and Host names count as loopback. Several safety rules depend on it:
// `--no-auth` and sign-in-free viewer tickets are allowed only on loopback.

/** True for a bind address that only local processes can reach. */
export function isLoopbackHost(host: string): boolean {
  const h = host
    .trim()
    .toLowerCase()
    .replace(/^\[(.*)\]$/, '$1');
  if (h === 'localhost' || h === '::1') return true;
  // The whole 127.0.0.0/8 block is loopback.
  return /^127(?:\.\d{1,3}){3}$/.test(h);
}

/** Formats a host for a URL or a Host header: IPv6 literals get brackets. */
export function hostForUrl(host: string): string {
  return host.includes(':') && !host.startsWith('[') ? `[${host}]` : host;
}
