// The address a request came from, for the sign-in throttle and the session record. Only a
// reverse proxy the operator named (OC_TRUSTED_PROXIES: addresses or CIDR ranges, e.g. Caddy's
// container network) is believed about X-Forwarded-For; anyone else could write any address
// there and dodge a ban.
import { getConnInfo } from '@hono/node-server/conninfo';
import type { Context } from 'hono';
import { BlockList, isIP } from 'node:net';

export type TrustedProxies = readonly string[];

const lists = new WeakMap<TrustedProxies, BlockList>();

/** Parses `10.0.0.5`, `::1`, `10.89.10.0/24` entries; throws on anything else. */
export function trustedProxyList(entries: TrustedProxies): BlockList {
  let list = lists.get(entries);
  if (list !== undefined) return list;
  list = new BlockList();
  for (const entry of entries) {
    const [address = '', prefix] = entry.split('/');
    const family = isIP(address);
    if (family === 0) throw new Error(`"${entry}" is not an IP address or CIDR range`);
    const type = family === 6 ? 'ipv6' : 'ipv4';
    if (prefix === undefined) list.addAddress(address, type);
    else list.addSubnet(address, Number(prefix), type);
  }
  lists.set(entries, list);
  return list;
}

function isTrusted(address: string, proxies: TrustedProxies): boolean {
  if (proxies.length === 0) return false;
  const family = isIP(address);
  if (family === 0) return false;
  return trustedProxyList(proxies).check(address, family === 6 ? 'ipv6' : 'ipv4');
}

export function clientAddress(c: Context, trustedProxies: TrustedProxies): string {
  let remote = 'unknown';
  try {
    remote = getConnInfo(c).remote.address ?? 'unknown';
  } catch {
    // app.request() in tests has no socket.
  }
  const normalized = remote.replace(/^::ffff:/, '');
  if (!isTrusted(normalized, trustedProxies)) return normalized;
  // The last hop the trusted proxy appended is the client it saw.
  const forwarded = c.req.header('x-forwarded-for');
  const last = forwarded
    ?.split(',')
    .map((part) => part.trim())
    .filter(Boolean)
    .pop();
  return last === undefined || isIP(last) === 0 ? normalized : last;
}
