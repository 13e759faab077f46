// One plane per desktop: its AI mode, its viewer windows (the hub, every person's who
// may see it), its Stop, its map (the owner's layout and privacy masks), the MCP sessions working
// on it, and who is in charge. Exactly one person is in charge of a desktop at a time (its owner
// unless the charge was handed over or taken): every AI input and approval on it follows that
// person's permission toggles and is answered in that person's windows; the AI of anyone else
// may only look (WATCHER_TOOLS). Stop from any window with access stops all AI input on it.
// Planes are made on first use (a window connecting, a session calling) and dropped when the
// desktop is removed. The mode and the standing permissions are written to the store
// (desktop_policy) as they change and read back when a plane is made, so they outlive a restart;
// in a site of several bridges each change is also told to the other bridges (`site`, wired by
// site/joinSite.ts), which apply it to their plane of the desktop without telling it again,
// writing it again or auditing it again (planeSite.ts: what a plane tells the site, and what
// it is told, applied).
import {
  Mode as ModeSchema,
  eventAllowed,
  MAX_LISTED_WATCHERS,
  aiClientRef,
  permittedEventTypes,
  type BridgeToViewer,
  type DesktopAccessLevel,
  type DesktopRecordingState,
  type Mode,
  type Permissions,
  type PermissionsPatch,
  type UiEvent,
  type ViewerToBridge,
} from '@overlay-companion/protocol';
import type { Logger } from 'pino';
import { ModeState, type ModeChangeSource, type ModeSnapshot } from '../policy/modeState.js';
import type { OverlayChange } from '../relay/overlayRelay.js';
import type { ApprovalOutcome } from '../relay/hubWiring.js';
import type { HeadlessLauncher } from '../relay/noViewer.js';
import type { DesktopReceipts } from '../relay/earlySettlement.js';
import { ViewerHub } from '../relay/viewerHub.js';
import type { ViewerPeer } from '../relay/viewerPeer.js';
import type { DesktopPolicyRecord, PersonRecord, Store } from '../store/types.js';
import type { SessionState } from './toolkit.js';
import { readLayout } from '../layouts/storedLayouts.js';
import { aiClientsMessage, mergeAiClients } from './aiClients.js';
import type { DesktopDirectory, DesktopEntry } from '../desktops/desktopDirectory.js';
import { accessOf } from '../desktops/desktopAccess.js';
import {
  StandingPermissions,
  type StandingEnd,
  type StandingRecord,
} from '../policy/standingPermissions.js';
import { errorMessage } from '../errors.js';
import { applyStandingMessage } from './standingGrant.js';
import { PlaneFromSite, type AiClientsList, type PlaneSite, type SitePlane } from './planeSite.js';

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
  /** The display name of a person with a window here (for the watchers list). */
  noteName(personId: string, name: string): void;
}

/** At most one AI-clients update per desktop this often (each tool call counts as a change). */
const AI_CLIENTS_COALESCE_MS = 500;

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
  /** Every change to a desktop's overlays (the recording's event track). */
  overlaysChanged?: (desktopId: string, change: OverlayChange) => void;
  /** A person took the desktop from the AI or handed it back (the recording's event track). */
  takeOverChanged?: (desktopId: string, on: boolean, byName: string | undefined) => void;
  /** What a window is told about the desktop's recording (recordings/recordings.ts). */
  recording?: (desktopId: string, viewer: { inCharge: boolean }) => DesktopRecordingState;
  /** The desktop's size on a tunnel in use now (relay/settledOverlays.ts settles draws with it). */
  desktopSize?: (desktopId: string) => { width: number; height: number } | undefined;
  /** Receipt tokens this bridge's tunnels answer (tunnel/callReceipts.ts): input calls settle early. */
  callReceipts?: { forDesktop(desktopId: string): DesktopReceipts } | undefined;
}

type ChargeRequest = Extract<ViewerToBridge, { type: 'charge' }>;

class Plane implements DesktopPlane {
  readonly hub: ViewerHub;
  readonly mode: ModeState;
  readonly sessions = new Set<SessionState>();
  readonly standing: StandingPermissions;
  private stopController = new AbortController();
  private aiClientsTimer: NodeJS.Timeout | undefined;
  /** Display names of the people seen here (windows, the person in charge). */
  private readonly names = new Map<string, string>();
  private entry: DesktopEntry;
  private charge: InChargeRef;
  private current: Permissions;
  /** The AI clients of this bridge's sessions, and of the other bridges' of the site. */
  private localClients: AiClientsList = [];
  private remoteClients: AiClientsList = [];
  /** AI clients that had a session here (see aiClientsChanged). */
  private readonly clientsSeen = new Set<string>();
  /** What the other bridges of the site tell this plane, applied (planeSite.ts). */
  readonly fromSite: PlaneFromSite;
  /** The store writes of this plane, one after another (a later one must not land first). */
  private writes: Promise<void> = Promise.resolve();
  private readonly logger: Logger;

  constructor(
    entry: DesktopEntry,
    inCharge: PersonRecord,
    permissions: Permissions,
    stored: DesktopPolicyRecord | undefined,
    private readonly options: DesktopPlanesOptions,
    private readonly site: () => PlaneSite | undefined,
  ) {
    this.entry = entry;
    this.charge = { id: inCharge.id, name: inCharge.displayName };
    this.names.set(inCharge.id, inCharge.displayName);
    this.current = permissions;
    const logger = options.logger.child({ desktopId: entry.record.id });
    this.logger = logger;
    this.fromSite = new PlaneFromSite({
      desktopId: entry.record.id,
      logger,
      inChargeId: () => this.charge.id,
      readPolicy: () => options.store.desktopPolicy.get(this.desktopId),
      writesDone: () => this.writes,
      close: (reason) => this.close(reason),
      mode: () => this.mode,
      standing: () => this.standing,
      hub: () => this.hub,
    });
    // What the person in charge left; another person's policy (the charge moved since) is not.
    const mine = stored?.personId === inCharge.id ? stored : undefined;
    const storedMode = ModeSchema.safeParse(mine?.mode);
    this.mode = storedMode.success
      ? new ModeState(storedMode.data, mine?.modeMetadata ?? undefined)
      : new ModeState(options.initialMode);
    this.standing = new StandingPermissions({
      changed: (how) => {
        this.hub.setStanding(() => this.standing.message());
        if (how === 'kept' && !this.fromSite.active) this.keepStanding();
      },
      observer: {
        granted: (record) => {
          if (!this.fromSite.active) options.observer?.standingGranted?.(record, this.desktopName);
        },
        ended: (record, why, by) => {
          if (!this.fromSite.active)
            options.observer?.standingEnded?.(record, why, by, this.desktopName);
        },
      },
    });
    let previous = this.mode.mode;
    this.mode.onChange((snapshot, source) => {
      const from = previous;
      previous = snapshot.mode;
      this.fromSite.noteModeChange();
      if (this.fromSite.active) return;
      options.observer?.modeChanged?.(
        this.charge.id,
        snapshot,
        from,
        source,
        this.desktopName,
        this.desktopId,
      );
      const inChargeId = this.charge.id;
      this.site()?.modeChanged(this.desktopId, inChargeId, snapshot);
      this.write('mode', () =>
        options.store.desktopPolicy.setMode(
          this.desktopId,
          inChargeId,
          snapshot.mode,
          snapshot.metadata,
        ),
      );
    });
    this.hub = new ViewerHub({
      mode: this.mode,
      permissions: () => this.current,
      inCharge: () => this.charge.id,
      describeDesktop: (peer) => this.describe(peer),
      logger: logger.child({ part: 'viewers' }),
      viewerUrl: options.viewerUrl,
      answerElsewhere: (person, message) =>
        this.site()?.answerApproval(this.desktopId, person, message),
      controlElsewhere: () => this.site()?.controlElsewhere(this.desktopId) === true,
      overlaysWanted: () => this.site()?.overlaysWanted(this.desktopId),
      desktopSize: () => options.desktopSize?.(this.desktopId),
      receipts: options.callReceipts?.forDesktop(entry.record.id),
      ...(options.headlessLauncher === undefined
        ? {}
        : { headlessLauncher: options.headlessLauncher }),
    });
    const overlaysChanged = options.overlaysChanged;
    if (overlaysChanged !== undefined) {
      this.hub.overlayFeed.subscribe((change) => overlaysChanged(this.desktopId, change));
      // An overlay the bridge drew counts from when it was handed to the window (its echo,
      // later, changes nothing there: the track keeps one event per drawn overlay).
      this.hub.overlayFeed.subscribePuts((overlay) =>
        overlaysChanged(this.desktopId, { type: 'overlay_created', overlay, seq: -1 }),
      );
    }
    // What a window here changed is told to the site; what the site told is not told back.
    this.hub.overlayFeed.subscribe((change) => {
      if (!this.hub.site.overlaysFromSite) this.site()?.overlaysChanged(this.desktopId, change);
    });
    this.hub.listen({
      event: (event) => {
        // The person in charge agreed (by their toggles) to let their own AI read what they do;
        // another person's AI on the desktop, even one that subscribed while its person was in
        // charge, gets none of it.
        for (const session of this.sessions)
          if (session.principal.personId === this.charge.id) session.events.push(event);
      },
      stop: (byPersonId) => {
        this.standing.endAll('stop', byPersonId);
        this.stopController.abort();
        this.stopController = new AbortController();
        if (this.fromSite.active) return;
        options.observer?.stopped?.(byPersonId ?? this.charge.id, this.desktopName, this.desktopId);
        this.site()?.stopped(this.desktopId, byPersonId);
      },
      approval: (outcome) =>
        options.observer?.approval?.(this.charge.id, outcome, this.desktopName, this.desktopId),
      approvalsListed: (message) =>
        this.site()?.approvalsListed(this.desktopId, this.charge.id, message),
      aiAction: (message) => this.site()?.aiAction(this.desktopId, message),
      charge: (peer, message) => this.chargeRequested(peer, message),
      standing: (peer, message, call) =>
        applyStandingMessage(
          this.standing,
          { id: peer.personId, name: this.names.get(peer.personId) ?? this.charge.name },
          message,
          call,
        ),
      windowsChanged: () => this.hub.desktopChanged(),
      takeOver: (on, by) => {
        options.takeOverChanged?.(
          this.desktopId,
          on,
          by === undefined ? undefined : this.names.get(by),
        );
        this.site()?.takeOver(this.desktopId, on);
      },
    });
    // What the person in charge allowed for a while, as the store kept it (after the hub: the
    // windows are told the list).
    if (mine !== undefined) this.standing.restore(mine.standing, mine.standingCounter);
  }

  get desktopId(): string {
    return this.entry.record.id;
  }

  get desktopName(): string {
    return this.entry.record.name;
  }

  get ownerId(): string {
    return this.entry.record.ownerId;
  }

  inCharge(): InChargeRef {
    return this.charge;
  }

  permissions(): Permissions {
    return this.current;
  }

  stopSignal(): AbortSignal {
    return this.stopController.signal;
  }

  /** A window's person (name for the watchers list). */
  noteName(personId: string, name: string): void {
    this.names.set(personId, name);
  }

  /** Writes the standing permissions, then tells the site (which reads them from the store). */
  private keepStanding(): void {
    const inChargeId = this.charge.id;
    const { list, counter } = this.standing.stored();
    this.write('standing permissions', async () => {
      const written = await this.options.store.desktopPolicy.setStanding(
        this.desktopId,
        inChargeId,
        list,
        counter,
      );
      if (written) this.site()?.standingChanged(this.desktopId);
      return written;
    });
  }

  /** Queues one store write; a failure is logged (the plane keeps working from memory). */
  private write(what: string, run: () => Promise<boolean>): void {
    this.writes = this.writes.then(run).then(
      () => undefined,
      (err: unknown) =>
        this.logger.warn({ err: errorMessage(err) }, `the desktop's ${what} could not be stored`),
    );
  }

  /** The in-charge person changed their toggles. */
  setPermissions(next: Permissions): void {
    this.current = next;
    // Events collected while a toggle was on but not read yet go with it (a key press typed
    // just before the person turned key reading off stays private).
    const allowed = (event: UiEvent): boolean => eventAllowed(next, event.type);
    for (const session of this.sessions) session.events.forget(allowed);
    this.hub.permissionsChanged();
    this.updateEventInterest();
  }

  /**
   * The record or its grants changed (API, or another bridge of the site: `fromSite`): windows
   * whose person lost access are closed.
   */
  async reload(entry: DesktopEntry, fromSite = false): Promise<void> {
    this.entry = entry;
    const wantedCharge = entry.record.inChargeId ?? entry.record.ownerId;
    if (wantedCharge !== this.charge.id) await this.moveCharge(wantedCharge, undefined, fromSite);
    for (const watcher of this.hub.watchers()) {
      const person = await this.options.store.people.byId(watcher.personId);
      const access = person === undefined ? null : accessOf(person, entry.record, entry.grants);
      if (access === null || person?.disabled === true) {
        this.hub.closePerson(watcher.personId, 4403, 'Your access to this desktop was removed.');
      }
    }
    this.hub.desktopChanged();
  }

  /** This bridge's AI clients on the desktop, as last listed (a site tells them again). */
  get aiClientsHere(): AiClientsList {
    return this.localClients;
  }

  /** The AI clients of the other bridges of the site changed: the windows here show them too. */
  aiClientsElsewhere(clients: AiClientsList): void {
    this.remoteClients = clients;
    this.hub.setAiClients(mergeAiClients([this.localClients, clients]));
  }

  aiClientsChanged(): void {
    if (this.aiClientsTimer !== undefined) return;
    this.aiClientsTimer = setTimeout(() => {
      this.aiClientsTimer = undefined;
      const message = aiClientsMessage(this.sessions);
      this.localClients = message.clients;
      this.site()?.aiClientsListed(this.desktopId, message);
      this.hub.setAiClients(mergeAiClients([message.clients, this.remoteClients]));
      // "Allow for this AI session" ends with the client's last session here. Clients that never
      // had a session on this bridge are another bridge's to end (a site).
      const live = new Set(
        [...this.sessions].map(
          (session) =>
            aiClientRef(
              session.principal.tokenId,
              session.principal.tokenName,
              session.clientName(),
            ).key,
        ),
      );
      for (const key of live) this.clientsSeen.add(key);
      const keep = new Set(
        this.standing
          .stored()
          .list.map((p) => p.clientKey)
          .filter((key) => live.has(key) || !this.clientsSeen.has(key)),
      );
      this.standing.endSessionsGone(keep);
      for (const key of this.clientsSeen) if (!live.has(key)) this.clientsSeen.delete(key);
    }, AI_CLIENTS_COALESCE_MS);
    this.aiClientsTimer.unref();
  }

  updateEventInterest(): void {
    // Only what a session of the person in charge collects AND they allow is ever streamed.
    const wanted = [...this.sessions]
      .filter((session) => session.principal.personId === this.charge.id)
      .flatMap((session) => [...session.events.types()]);
    this.hub.setEventInterest(permittedEventTypes(new Set(wanted), this.current));
  }

  /** Closes everything: the desktop is gone or the bridge stops. */
  close(reason: string): void {
    if (this.aiClientsTimer !== undefined) clearTimeout(this.aiClientsTimer);
    this.hub.stop(reason);
    this.standing.close();
    this.hub.closeAll();
  }

  private describe(peer: ViewerPeer): BridgeToViewer {
    const watchers = this.hub.watchers();
    const youInCharge = peer.personId === this.charge.id;
    const name = (id: string): string => this.names.get(id) ?? 'someone';
    const recording = this.options.recording?.(this.desktopId, { inCharge: youInCharge });
    return {
      type: 'desktop_state',
      desktop: { id: this.desktopId, name: this.desktopName.slice(0, 200) },
      in_charge: { id: this.charge.id, name: this.charge.name.slice(0, 200) },
      watchers: watchers
        .slice(0, MAX_LISTED_WATCHERS)
        .map((w) => ({ id: w.personId, name: name(w.personId).slice(0, 200), access: w.access })),
      more_watchers: Math.max(0, watchers.length - MAX_LISTED_WATCHERS),
      you: {
        access: peer.access,
        in_charge: youInCharge,
        may_take_charge: !youInCharge && mayTakeCharge(peer.access),
        may_hand_over_to: youInCharge
          ? watchers
              .filter((w) => w.personId !== peer.personId && mayBeInCharge(w.access))
              .slice(0, MAX_LISTED_WATCHERS)
              .map((w) => ({ id: w.personId, name: name(w.personId).slice(0, 200) }))
          : [],
      },
      ...(recording === undefined
        ? {}
        : {
            recording: {
              ...recording,
              stopped_reason: recording.stopped_reason?.slice(0, 500) ?? null,
            },
          }),
    };
  }

  private chargeRequested(peer: ViewerPeer, message: ChargeRequest): string | undefined {
    if (peer.headless) return 'charge: the headless viewer cannot take or hand over the charge.';
    if (message.action === 'take') {
      if (peer.personId === this.charge.id) return undefined;
      if (!mayTakeCharge(peer.access))
        return `charge: only the desktop's owner or an admin may take the charge; ask ${this.charge.name} to hand it over.`;
      void this.moveCharge(peer.personId, peer.personId);
      return undefined;
    }
    if (peer.personId !== this.charge.id)
      return `charge: only ${this.charge.name}, who is in charge, may hand the charge over.`;
    const to = message.to;
    if (to === undefined) return 'charge: hand_over needs `to`, the person to hand the charge to.';
    const target = this.hub.watchers().find((w) => w.personId === to);
    if (target === undefined || !mayBeInCharge(target.access))
      return 'charge: hand the charge only to someone with control of this desktop who has a window open on it.';
    void this.moveCharge(to, peer.personId);
    return undefined;
  }

  /**
   * Moves the charge: stored, the previous person's waiting calls and approvals fail, the mode
   * goes back to the operator's starting mode (the new person's policy starts afresh), the
   * permissions become the new person's, and every window is told — and the other bridges of
   * the site, unless it was one of them that moved it (`fromSite`: applied, not told again).
   */
  async moveCharge(
    toPersonId: string,
    byPersonId: string | undefined,
    fromSite = false,
  ): Promise<void> {
    const { store, directory, logger } = this.options;
    const person = await store.people.byId(toPersonId);
    if (person === undefined || person.disabled) return;
    const from = this.charge;
    if (from.id === person.id) return;
    const permissions = await store.permissions.get(person.id);
    if (byPersonId !== undefined) {
      const stored = person.id === this.entry.record.ownerId ? null : person.id;
      await store.desktops.update(this.desktopId, { inChargeId: stored });
      directory.invalidate();
    }
    const apply = (): void => {
      this.charge = { id: person.id, name: person.displayName };
      this.names.set(person.id, person.displayName);
      logger.info({ desktopId: this.desktopId, from: from.id, to: person.id }, 'charge moved');
      // What the previous person allowed was theirs to allow, not the new person's.
      this.standing.endAll('charge_moved', byPersonId);
      this.hub.chargeChanged(
        `The charge of ${this.desktopName} moved from ${from.name} to ${person.displayName}.`,
      );
      this.mode.set(this.options.initialMode, undefined, 'stop');
      this.setPermissions(permissions);
    };
    if (fromSite) {
      this.fromSite.apply(apply);
      return;
    }
    apply();
    this.site()?.desktopChanged(this.desktopId);
    if (byPersonId !== undefined)
      this.options.observer?.chargeMoved?.(
        byPersonId,
        from,
        this.charge,
        this.desktopName,
        this.desktopId,
      );
  }
}

/** Who may take the charge without it being handed over. */
function mayTakeCharge(access: DesktopAccessLevel): boolean {
  return access === 'owner' || access === 'admin';
}

/** Who may be in charge at all (never a view grant). */
export function mayBeInCharge(access: DesktopAccessLevel): boolean {
  return access !== 'view';
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
