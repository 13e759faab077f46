// xrdp gives one account one session: a second RDP connection with the same account takes the
// first session over, leaving the first connection frozen without an error (xrdp 0.9.21). Two
// desktop records with the same server and account open at once would do that to each other,
// silently; desktopConnections.ts refuses to open the second with a message that says why.
import { GuacStatus } from '@overlay-companion/guac';
import type { ConnectionConfig } from '../config.js';
import type { TunnelTarget } from './tunnelSession.js';
import { TunnelStartError } from './upstream.js';

/** Throws a TunnelStartError (SESSION_CONFLICT) when `target` would take an open desktop's RDP session over. */
export function refuseSessionTakeover(
  desktopId: string,
  target: TunnelTarget,
  open: Iterable<[string, { connectionId: string | undefined; target: TunnelTarget | undefined }]>,
): void {
  const account = rdpAccount(target.connection);
  if (account === undefined) return;
  for (const [otherId, other] of open) {
    if (otherId === desktopId || other.connectionId === undefined || other.target === undefined)
      continue;
    if (rdpAccount(other.target.connection) === account)
      throw new TunnelStartError(
        'Another desktop is open with the same RDP server and account, and opening this one would take its session over (xrdp gives an account one session). Give each desktop its own account on the Desktops page, or close the other desktop first.',
        GuacStatus.SESSION_CONFLICT,
      );
  }
}

/** "host:port/domain\\user" of an RDP connection (the session xrdp keys by account), else undefined. */
function rdpAccount(connection: ConnectionConfig): string | undefined {
  if (connection.protocol !== 'rdp') return undefined;
  const { hostname = '', port = '3389', domain = '', username = '' } = connection.params;
  return `${hostname.toLowerCase()}:${port}/${domain.toLowerCase()}\\${username.toLowerCase()}`;
}
