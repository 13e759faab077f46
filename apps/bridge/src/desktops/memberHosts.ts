// Where a desktop that a member (not an admin) added may point the bridge, checked each time it
// connects: never this machine (loopback, and the addresses of its own interfaces, where guacd,
// the gateway, the bridge and its database listen), never link-local (cloud metadata services live at 169.254.169.254) and never an
// unspecified or multicast address. The name is resolved here once and the address it resolved
// to is what guacd or the gateway is given, so a name that resolves elsewhere a moment later
// (DNS rebinding) cannot slip past the check. Admins' desktops are trusted as configured.
import { lookup } from 'node:dns/promises';
import { BlockList, isIP } from 'node:net';
import { networkInterfaces } from 'node:os';
import { DesktopReachError } from './errors.js';

const REFUSED = new BlockList();
REFUSED.addSubnet('127.0.0.0', 8, 'ipv4');
REFUSED.addSubnet('0.0.0.0', 8, 'ipv4');
REFUSED.addSubnet('169.254.0.0', 16, 'ipv4');
REFUSED.addSubnet('224.0.0.0', 4, 'ipv4');
REFUSED.addAddress('255.255.255.255', 'ipv4');
REFUSED.addAddress('::1', 'ipv6');
REFUSED.addAddress('::', 'ipv6');
REFUSED.addSubnet('fe80::', 10, 'ipv6');
REFUSED.addSubnet('ff00::', 8, 'ipv6');
// IPv4 written as IPv6 (::ffff:127.0.0.1) is the IPv4 address.
REFUSED.addSubnet('::ffff:127.0.0.0', 104, 'ipv6');
REFUSED.addSubnet('::ffff:169.254.0.0', 112, 'ipv6');
REFUSED.addSubnet('::ffff:0.0.0.0', 104, 'ipv6');

export class MemberHostError extends DesktopReachError {
  override name = 'MemberHostError';
}

/** Every address of this machine's own interfaces (a service on 0.0.0.0 answers on each). */
function ownAddresses(): Set<string> {
  const own = new Set<string>();
  for (const list of Object.values(networkInterfaces()))
    for (const entry of list ?? []) own.add(entry.address.toLowerCase().split('%')[0] ?? '');
  return own;
}

/** Whether a member's desktop may connect to this address. */
export function refusedForMembers(address: string): boolean {
  const family = isIP(address);
  if (family === 0) return true;
  if (REFUSED.check(address, family === 4 ? 'ipv4' : 'ipv6')) return true;
  const bare = address.toLowerCase();
  const own = ownAddresses();
  return own.has(bare) || (bare.startsWith('::ffff:') && own.has(bare.slice(7)));
}

/**
 * The address a member's desktop connects to for `host`: resolved once, every address it
 * resolves to checked; throws MemberHostError saying why it is refused.
 */
export async function memberDesktopAddress(host: string, desktopName: string): Promise<string> {
  const bare = host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host;
  let addresses: string[];
  try {
    addresses =
      isIP(bare) !== 0 ? [bare] : (await lookup(bare, { all: true })).map((a) => a.address);
  } catch {
    throw new MemberHostError(
      `The desktop "${desktopName}" names the host "${host.slice(0, 100)}", which does not resolve. Fix it on the Desktops page.`,
    );
  }
  const refused = addresses.find(refusedForMembers);
  if (refused !== undefined || addresses[0] === undefined) {
    throw new MemberHostError(
      `The desktop "${desktopName}" points at ${host.slice(0, 100)} (${refused ?? 'no address'}), which a desktop added by a member may not reach: this machine, link-local and multicast addresses are refused. An admin can add such a desktop.`,
    );
  }
  return addresses[0];
}
