// What the /api routes need from the rest of the bridge, in one place: who is signed in and what
// is stored (access), each person's live control plane (to apply permission changes and drop a
// removed person's windows), the MCP sessions (ended with a revoked token or a disabled person),
// and OpenID Connect when configured.
import type { Logger } from 'pino';
import type { Access } from '../auth/access.js';
import type { OidcSignIn } from '../auth/oidc.js';
import type { PersonPlanes } from '../mcp/personPlanes.js';

export interface ApiDeps {
  access: Access;
  planes: PersonPlanes;
  /** Ends MCP sessions of a token or a person. */
  endMcpSessions(match: { tokenId?: string; personId?: string }, reason: string): number;
  oidc: OidcSignIn | undefined;
  logger: Logger;
}
