// The planes of every desktop, and what a plane is: each desktop has one (plane.ts) — its AI
// mode, its viewer windows, its Stop, its map (the owner's layout and privacy masks), the MCP
// sessions working on it, and who is in charge. Exactly one person is in charge of a desktop at
// a time (its owner unless the charge was handed over or taken): every AI input and approval on
// it follows that person's permission toggles and is answered in that person's windows; the AI
// of anyone else may only look (WATCHER_TOOLS). Stop from any window with access stops all AI
// input on it. Planes are made here on first use (a window connecting, a session calling) and
// dropped when the desktop is removed; a person's changed toggles, a changed record, a removed
// person and (in a site of several bridges, `site`, wired by site/joinSite.ts) what the other
// bridges tell are applied to the planes they concern.
import type {
  Mode,
  Permissions,
  PermissionsPatch,
  DesktopRecordingState,
} from '@overlay-companion/protocol';
import type { Logger } from 'pino';
import type { ModeChangeSource, ModeSnapshot, ModeState } from '../policy/modeState.js';
import type { OverlayChange, OverlayPut } from '../relay/overlayRelay.js';
import type { ApprovalOutcome } from '../relay/hubWiring.js';
import type { HeadlessLauncher } from '../relay/noViewer.js';
import type { DesktopReceipts } from '../relay/earlySettlement.js';
import type { ViewerHub } from '../relay/viewerHub.js';
import type { Store } from '../store/types.js';
import type { SessionState } from './toolkit.js';
import { readLayout } from '../layouts/storedLayouts.js';
import type { DesktopDirectory } from '../desktops/desktopDirectory.js';
import type {
  StandingEnd,
  StandingPermissions,
  StandingRecord,
} from '../policy/standingPermissions.js';
import type { AiClientsList, PlaneSite, SitePlane } from './planeSite.js';
import { Plane } from './plane.js';

export type { PlaneSite, SitePlane } from './planeSite.js';

export interface InChargeRef {
  id: string;
  name: string;
}

export interface DesktopPlane {
  readonly desktopId: string;
  /** The desktop's name as last loaded. */
  readonly desktopName: string;
  /** The person whose policy every AI input here follows. */
  inCharge(): InChargeRef;
  /** The desktop's owner (whose layout is its map). */
  readonly ownerId: string;
  readonly hub: ViewerHub;
  readonly mode: ModeState;
  /** The toggles of the person in charge, right now. */
  permissions(): Permissions;
  /** Standing permissions the person in charge gave here ("allow this for a while"). */
  readonly standing: StandingPermissions;
  /** Aborts when someone presses Stop; a fresh signal after each Stop. */
  stopSignal(): AbortSignal;
  /** The MCP sessions working on this desktop (for the event interest and the AI-clients list). */
  readonly sessions: Set<SessionState>;
  /** Recomputes which event types the in-charge person's windows must stream. */
  updateEventInterest(): void;
  /** A session began, ended or made a call: the windows' AI-clients list follows (coalesced). */
  aiClientsChanged(): void;
  /** The AI clients of the whole site on the desktop, as the windows show them (the fleet tile). */
  aiClientsShown(): AiClientsList;
  /** Whether the control window is open on any bridge of the site (this one included). */
  controlWindowOnSite(): boolean;
  /** The display name of a person with a window here (for the watchers list). */
  noteName(personId: string, name: string): void;
}

/** What the planes report, for the audit log. `personId` is whoever the entry is about. */
export interface PlaneObserver {
  modeChanged?(
    personId: string,
    snapshot: ModeSnapshot,
    from: Mode,
    source: ModeChangeSource,
    desktopName: string,
    desktopId?: string,
  ): void;
  approval?(
    personId: string,
    outcome: ApprovalOutcome,
    desktopName: string,
    desktopId?: string,
  ): void;
  stopped?(personId: string, desktopName: string, desktopId?: string): void;
  chargeMoved?(
    byPersonId: string,
    from: InChargeRef,
    to: InChargeRef,
    desktopName: string,
    desktopId?: string,
  ): void;
  standingGranted?(record: StandingRecord, desktopName: string): void;
  standingEnded?(
    record: StandingRecord,
    why: StandingEnd,
    byPersonId: string | undefined,
    desktopName: string,
  ): void;
}

export interface DesktopPlanesOptions {
  store: Store;
  directory: DesktopDirectory;
  logger: Logger;
  /** Starting mode of every desktop's plane (serve --mode), and after the charge moves. */
  initialMode: Mode;
  /** Base URL the person opens, for the "no viewer" guidance. */
  viewerUrl: () => string;
  /** With serve --headless-viewer: the launcher that brings the headless viewer back. */
  headlessLauncher?: () => HeadlessLauncher | undefined;
  observer?: PlaneObserver;
  /** A desktop's overlays changed, or the bridge drew one (the recording's event track). */
  overlaysChanged?: (desktopId: string, change: OverlayChange | OverlayPut) => void;
  /** A person took the desktop from the AI or handed it back (the recording's event track). */
  takeOverChanged?: (desktopId: string, on: boolean, byName: string | undefined) => void;
  /** What a window is told about the desktop's recording (recordings/recordingLifecycle.ts). */
  recording?: (desktopId: string, viewer: { inCharge: boolean }) => DesktopRecordingState;
  /** The desktop's size on a tunnel in use now (relay/settledOverlays.ts settles draws with it). */
  desktopSize?: (desktopId: string) => { width: number; height: number } | undefined;
  /** Receipt tokens this bridge's tunnels answer (tunnel/callReceipts.ts): input calls settle early. */
  callReceipts?: { forDesktop(desktopId: string): DesktopReceipts } | undefined;
}

export class DesktopPlanes {
  private readonly planes = new Map<string, Promise<Plane>>();
  /** The site this bridge belongs to, once joined (site/joinSite.ts); none: a bridge alone. */
  site: PlaneSite | undefined;

  constructor(private readonly options: DesktopPlanesOptions) {}

  /** The desktop's plane, made on first use; undefined when there is no such desktop. */
  async get(desktopId: string): Promise<DesktopPlane | undefined> {
    return this.load(desktopId);
  }

  private load(desktopId: string): Promise<Plane | undefined> {
    const existing = this.planes.get(desktopId);
    if (existing !== undefined) return existing;
    const { store, directory } = this.options;
    const made = (async () => {
      const entry = await directory.get(desktopId);
      if (entry === undefined) throw new NoSuchDesktop(desktopId);
      const inChargeId = entry.record.inChargeId ?? entry.record.ownerId;
      const person =
        (await store.people.byId(inChargeId)) ?? (await store.people.byId(entry.record.ownerId));
      if (person === undefined) throw new NoSuchDesktop(desktopId);
      const [permissions, saved, stored] = await Promise.all([
        store.permissions.get(person.id),
        readLayout(store, entry.record.ownerId, desktopId),
        store.desktopPolicy.get(desktopId),
      ]);
      const plane = new Plane(entry, person, permissions, stored, this.options, () => this.site);
      // The owner's map (monitors, privacy masks) reaches every window after hello.
      plane.hub.setLayout(saved?.layout ?? null);
      return plane;
    })();
    // A failed load must not stay cached: the next call tries again.
    made.catch(() => this.planes.delete(desktopId));
    this.planes.set(desktopId, made);
    return made.catch((err: unknown) => {
      if (err instanceof NoSuchDesktop) return undefined;
      throw err;
    });
  }

  /** Stores a change to a person's toggles and applies it where they are in charge. */
  async updatePermissions(personId: string, patch: PermissionsPatch): Promise<Permissions> {
    const next = await this.options.store.permissions.update(personId, patch);
    const told = this.site?.permissionsChanged(personId);
    for (const plane of await this.loadedPlanes())
      if (plane.inCharge().id === personId) plane.setPermissions(next);
    // The answer waits until the other bridges applied them too (site/siteAcks.ts).
    await told;
    return next;
  }

  /** Another bridge of the site changed a person's toggles: read and apply them here. */
  async permissionsChangedElsewhere(personId: string): Promise<void> {
    const mine = (await this.loadedPlanes()).filter((plane) => plane.inCharge().id === personId);
    if (mine.length === 0) return;
    const next = await this.options.store.permissions.get(personId);
    for (const plane of mine) if (plane.inCharge().id === personId) plane.setPermissions(next);
  }

  /**
   * The site's bus was away and is back: every plane here reads its record, charge, the toggles
   * of its person in charge, its mode and standing permissions again from the store.
   */
  async resyncFromStore(): Promise<void> {
    this.options.directory.invalidate();
    for (const plane of await this.loadedPlanes()) {
      await this.desktopChanged(plane.desktopId, true);
      await this.permissionsChangedElsewhere(plane.inCharge().id);
      await plane.fromSite.policyFromStore();
    }
  }

  /** The desktop's plane if this bridge has it (made or being made); none is made for this. */
  async ifLoaded(desktopId: string): Promise<(DesktopPlane & SitePlane) | undefined> {
    return this.planes.get(desktopId)?.catch(() => undefined);
  }

  /**
   * A desktop's record or grants changed (or it was removed): its plane follows, and the other
   * bridges of the site are told — unless one of them told us (`fromSite`).
   */
  async desktopChanged(desktopId: string, fromSite = false): Promise<void> {
    this.options.directory.invalidate();
    if (!fromSite) this.site?.desktopChanged(desktopId);
    const plane = await this.planes.get(desktopId)?.catch(() => undefined);
    if (plane === undefined) return;
    const entry = await this.options.directory.get(desktopId);
    if (entry === undefined) {
      this.planes.delete(desktopId);
      if (fromSite) plane.fromSite.closedElsewhere('The desktop was removed.');
      else plane.close('The desktop was removed.');
      return;
    }
    await plane.reload(entry, fromSite);
  }

  /** A person's layout was saved: the desktops they own show it (returns those desktops). */
  async ownerLayoutChanged(
    personId: string,
    apply: (plane: DesktopPlane) => void,
  ): Promise<DesktopPlane[]> {
    const owned = (await this.loadedPlanes()).filter((plane) => plane.ownerId === personId);
    for (const plane of owned) apply(plane);
    return owned;
  }

  /**
   * A removed or disabled person: their windows close everywhere, and desktops they were in
   * charge of are stopped and go back to their owners.
   */
  async drop(personId: string, reason: string): Promise<void> {
    this.options.directory.invalidate();
    for (const plane of await this.loadedPlanes()) {
      if (plane.inCharge().id === personId) {
        plane.hub.stop(reason);
        if (plane.ownerId !== personId) {
          // Back to the owner, also in the record (a disabled person keeps their row).
          await this.options.store.desktops.update(plane.desktopId, { inChargeId: null });
          await plane.moveCharge(plane.ownerId, undefined);
        }
      }
      plane.hub.closePerson(personId, 4401, reason.slice(0, 120));
      if (plane.ownerId === personId) {
        this.planes.delete(plane.desktopId);
        plane.close(reason);
      }
    }
  }

  /** The planes made so far (for /metrics: viewers and approvals waiting). */
  async loaded(): Promise<DesktopPlane[]> {
    return this.loadedPlanes();
  }

  async closeAll(): Promise<void> {
    for (const plane of await this.loadedPlanes()) plane.hub.closeAll();
    this.planes.clear();
  }

  private async loadedPlanes(): Promise<Plane[]> {
    const all = await Promise.all([...this.planes.values()].map((p) => p.catch(() => undefined)));
    return all.filter((plane): plane is Plane => plane !== undefined);
  }
}

class NoSuchDesktop extends Error {
  constructor(desktopId: string) {
    super(`No desktop ${desktopId}.`);
  }
}
