// What the fleet page of one person shows about each desktop they may see: read from the
// desktops' planes (who is in charge, mode, AI clients, the control window's approval queue), the
// same state their viewer windows are told. Approvals are listed only to the person in charge —
// the questions are theirs (as the viewer hub's mayHear) — and Stop / answers go through the
// planes' own paths (fleetSocket.ts), never a copy of their policy. In a site the tile is the
// site's, not this bridge's: the AI clients are the merged list the windows show (this bridge's
// sessions and the other bridges' lists, mcp/planeAiClients.ts), and the control window counts
// wherever it is open (its lease, site/controlLeases.ts), since the AI's calls are forwarded there.
import {
  aiClientRef,
  MAX_FLEET_AI_CLIENTS,
  MAX_FLEET_APPROVALS,
  MAX_FLEET_DESKTOPS,
  type FleetDesktop,
} from '@overlay-companion/protocol';
import type { DesktopDirectory, PersonDesktop } from '../desktops/desktopDirectory.js';
import type { DesktopPlane, DesktopPlanes } from '../mcp/desktopPlanes.js';
import type { Store } from '../store/types.js';

export interface FleetSources {
  store: Pick<Store, 'people'>;
  directory: Pick<DesktopDirectory, 'listFor' | 'onInvalidated'>;
  planes: Pick<DesktopPlanes, 'get'>;
}

/** The desktops `personId` may see (at most MAX_FLEET_DESKTOPS); undefined when not active. */
export async function visibleDesktops(
  sources: Pick<FleetSources, 'store' | 'directory'>,
  personId: string,
): Promise<PersonDesktop[] | undefined> {
  const person = await sources.store.people.byId(personId);
  if (person === undefined || person.disabled) return undefined;
  return (await sources.directory.listFor(person)).slice(0, MAX_FLEET_DESKTOPS);
}

/** Each desktop with its plane (made on first use); desktops without one are left out. */
export async function withPlanes(
  planes: FleetSources['planes'],
  desktops: PersonDesktop[],
): Promise<Array<{ desktop: PersonDesktop; plane: DesktopPlane }>> {
  const found: Array<{ desktop: PersonDesktop; plane: DesktopPlane }> = [];
  for (const desktop of desktops) {
    const plane = await planes.get(desktop.entry.record.id);
    if (plane !== undefined) found.push({ desktop, plane });
  }
  return found;
}

/** The desktops `personId` may see, with their planes; undefined when the person is not active. */
export async function fleetDesktops(
  sources: FleetSources,
  personId: string,
): Promise<Array<{ desktop: PersonDesktop; plane: DesktopPlane }> | undefined> {
  const visible = await visibleDesktops(sources, personId);
  return visible === undefined ? undefined : withPlanes(sources.planes, visible);
}

/** One tile's state, as `personId` may see it. */
export function fleetDesktop(
  personId: string,
  desktop: PersonDesktop,
  plane: DesktopPlane,
): FleetDesktop {
  const inCharge = plane.inCharge();
  const youInCharge = inCharge.id === personId && desktop.access !== 'view';
  const lastTool = new Map<string, string>();
  // The site's AI clients (this bridge's sessions and the other bridges' lists), as the windows
  // show them; the latest tool is known of this bridge's sessions only (the site does not list it).
  const clients = plane.aiClientsShown().slice(0, MAX_FLEET_AI_CLIENTS);
  const byLatest = [...plane.sessions].sort((a, b) => (a.lastCallAt ?? 0) - (b.lastCallAt ?? 0));
  // The latest call's tool per client (sessions sorted oldest call first: the last one wins).
  for (const session of byLatest) {
    if (session.lastTool === undefined) continue;
    const { tokenId, tokenName } = session.principal;
    lastTool.set(aiClientRef(tokenId, tokenName, session.clientName()).key, session.lastTool);
  }
  // On any bridge of the site: the AI's calls are forwarded to it from here.
  const controlWindow = plane.controlWindowOnSite();
  const approvals = youInCharge
    ? plane.hub
        .listedApprovals()
        .sort((a, b) => a.asked_at - b.asked_at)
        .slice(0, MAX_FLEET_APPROVALS)
    : [];
  return {
    id: desktop.entry.record.id,
    name: desktop.entry.record.name.slice(0, 200),
    access: desktop.access,
    in_charge: { id: inCharge.id, name: inCharge.name.slice(0, 200) },
    you_in_charge: youInCharge,
    mode: plane.mode.mode,
    control_window: controlWindow,
    ai_clients: clients.map((c) => ({
      client: c.client,
      sessions: c.sessions,
      last_call_at: c.last_call_at,
      last_tool: lastTool.get(c.client.key) ?? null,
    })),
    approvals,
    error:
      clients.length > 0 && !controlWindow
        ? `No window of ${inCharge.name.slice(0, 150)} is open on it: its AI cannot act (open it to let it).`
        : null,
  };
}
