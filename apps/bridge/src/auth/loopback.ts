// Which bind addresses and Host names count as loopback. Safety rules depend on it: the Host
// guard's loopback aliases (localhost, 127.0.0.1, [::1]) and plain-http OpenID Providers (for
// tests) are accepted only on loopback.

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

/**
 * The host to put in a URL the person can open: a wildcard bind address (0.0.0.0, ::) is not
 * an address to browse to, so it becomes loopback. Shared by the printed URL (startBridge) and
 * the "open the viewer" guidance (desktopControl), which must name the same place.
 */
export function openableHost(host: string): string {
  if (host === '0.0.0.0') return '127.0.0.1';
  if (host === '::') return '[::1]';
  return hostForUrl(host);
}
