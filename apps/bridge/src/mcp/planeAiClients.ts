// A desktop plane's list of AI clients, as its windows show it: this bridge's MCP sessions on the
// desktop, listed at most once per AI_CLIENTS_COALESCE_MS (each tool call counts as a change),
// merged with what the other bridges of a site list; and the end of the standing permissions
// given "for this AI session" once that client's last session here is gone.
import { aiClientRef } from '@overlay-companion/protocol';
import type { StandingPermissions } from '../policy/standingPermissions.js';
import type { ViewerHub } from '../relay/viewerHub.js';
import { aiClientsMessage, mergeAiClients } from './aiClients.js';
import type { AiClientsList, PlaneSite } from './planeSite.js';
import type { SessionState } from './toolkit.js';

/** At most one AI-clients update per desktop this often (each tool call counts as a change). */
const AI_CLIENTS_COALESCE_MS = 500;

export interface PlaneAiClientsSources {
  desktopId: string;
  /** The MCP sessions working on the desktop (the plane's own set, read at each update). */
  sessions: ReadonlySet<SessionState>;
  hub: ViewerHub;
  standing: StandingPermissions;
  site: () => PlaneSite | undefined;
}

export class PlaneAiClients {
  private timer: NodeJS.Timeout | undefined;
  /** The AI clients of this bridge's sessions, and of the other bridges' of the site. */
  private local: AiClientsList = [];
  private remote: AiClientsList = [];
  /** AI clients that had a session here (see changed()). */
  private readonly seen = new Set<string>();

  constructor(private readonly sources: PlaneAiClientsSources) {
    // What the other bridges listed before this plane was made here (they tell it again only
    // every AI_CLIENTS_REFRESH_MS).
    const told = sources.site()?.aiClientsListedElsewhere(sources.desktopId) ?? [];
    if (told.length > 0) this.elsewhere(told);
  }

  /** This bridge's AI clients on the desktop, as last listed (a site tells them again). */
  get here(): AiClientsList {
    return this.local;
  }

  /** The AI clients of the other bridges of the site changed: the windows here show them too. */
  elsewhere(clients: AiClientsList): void {
    this.remote = clients;
    this.sources.hub.setAiClients(this.withElsewhere(this.local));
  }

  /**
   * The list the windows show, with this bridge's sessions as they are now (not as last listed):
   * what the fleet tile shows (fleet/fleetState.ts).
   */
  shown(): AiClientsList {
    return this.withElsewhere(aiClientsMessage(this.sources.sessions).clients).clients;
  }

  /** This bridge's list merged with the other bridges' (the one merge the windows get). */
  private withElsewhere(here: AiClientsList): ReturnType<typeof mergeAiClients> {
    return mergeAiClients([here, this.remote]);
  }

  /** A session began, ended or made a call: the list follows (coalesced). */
  changed(): void {
    if (this.timer !== undefined) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.update();
    }, AI_CLIENTS_COALESCE_MS);
    this.timer.unref();
  }

  close(): void {
    if (this.timer !== undefined) clearTimeout(this.timer);
  }

  private update(): void {
    const { desktopId, sessions, hub, standing, site } = this.sources;
    const message = aiClientsMessage(sessions);
    this.local = message.clients;
    site()?.aiClientsListed(desktopId, message);
    hub.setAiClients(this.withElsewhere(message.clients));
    // "Allow for this AI session" ends with the client's last session here. Clients that never
    // had a session on this bridge are another bridge's to end (a site).
    const live = new Set(
      [...sessions].map(
        (session) =>
          aiClientRef(session.principal.tokenId, session.principal.tokenName, session.clientName())
            .key,
      ),
    );
    for (const key of live) this.seen.add(key);
    const keep = new Set(
      standing
        .stored()
        .list.map((p) => p.clientKey)
        .filter((key) => live.has(key) || !this.seen.has(key)),
    );
    standing.endSessionsGone(keep);
    for (const key of this.seen) if (!live.has(key)) this.seen.delete(key);
  }
}
