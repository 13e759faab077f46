// What the /api routes need from the rest of the bridge, in one place: who is signed in and what
// is stored (access), each desktop's live plane (to apply permission changes and drop a
// removed person's windows), the MCP sessions (ended with a revoked token or a disabled person),
// OpenID Connect when configured, the live desktop and viewers behind the layout routes, and the
// box desktop credentials are sealed with.
import type { DesktopExtent, MonitorLayout } from '@overlay-companion/protocol';
import type { Logger } from 'pino';
import type { Access } from '../auth/access.js';
import type { OidcSignIn } from '../auth/oidc.js';
import type { DesktopSecretBox } from '../desktops/credentials.js';
import type { DesktopPlanes } from '../mcp/desktopPlanes.js';
import type { DesktopDirectory } from '../desktops/desktopDirectory.js';

export interface ApiDeps {
  access: Access;
  planes: DesktopPlanes;
  /** The desktop records as the runtime holds them (tickets check access through it). */
  directory?: DesktopDirectory | undefined;
  /** Ends MCP sessions of a token or a person. */
  endMcpSessions(
    match: { tokenId?: string; personId?: string },
    reason: string,
  ): number | Promise<number>;
  oidc: OidcSignIn | undefined;
  logger: Logger;
  /** The person's remote desktop size right now, when known (GET /api/layout shows it). */
  desktopSize?(
    personId: string,
    desktopId?: string,
  ): DesktopExtent | null | Promise<DesktopExtent | null>;
  /**
   * Called after a person saved their layout (stored and audited), or removed it (null): push it
   * to their viewer windows and size the desktop. Not awaited by the request; a failure is logged.
   */
  layoutSaved?(
    personId: string,
    layout: MonitorLayout | null,
    /** The desktop whose own layout it is; undefined: the person's (their desktops' map). */
    desktopId?: string,
  ): void | Promise<void>;
  /** Seals desktop credentials before they are stored (desktops/credentials.ts). */
  secretBox: DesktopSecretBox;
  /**
   * Called after a desktop record changed (stored and audited): the runtime reloads it, ends
   * what the change no longer allows. Not awaited by the request; a failure is logged.
   */
  desktopsChanged?(
    desktopId: string,
    change: 'created' | 'changed' | 'removed' | 'grants',
  ): void | Promise<void>;
}
