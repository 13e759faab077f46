// The plane of one desktop: its AI mode, its viewer windows (the hub), its Stop, its standing
// permissions, the MCP sessions working on it and who is in charge (exactly one person at a
// time: its owner unless the charge was handed over or taken). The mode and the standing
// permissions are written to the store (desktop_policy) as they change and read back when a
// plane is made; in a site each change is also told to the other bridges, and what they tell
// is applied without telling it again (planeSite.ts). Its parts: the AI-clients list
// (planeAiClients.ts), the desktop_state message (desktopState.ts), the charge's rules
// (planeCharge.ts). The planes of all desktops are desktopPlanes.ts's.
import {
  Mode as ModeSchema,
  eventAllowed,
  permittedEventTypes,
  type BridgeToViewer,
  type Permissions,
  type UiEvent,
} from '@overlay-companion/protocol';
import type { Logger } from 'pino';
import { stopCause } from '../audit/decider.js';
import { ModeState } from '../policy/modeState.js';
import { ViewerHub } from '../relay/viewerHub.js';
import type { ViewerPeer } from '../relay/viewerPeer.js';
import type { DesktopPolicyRecord, PersonRecord } from '../store/types.js';
import type { SessionState } from './toolkit.js';
import type { DesktopEntry } from '../desktops/desktopDirectory.js';
import { accessOf } from '../desktops/desktopAccess.js';
import { StandingPermissions } from '../policy/standingPermissions.js';
import { errorMessage } from '../errors.js';
import { applyStandingMessage } from './standingGrant.js';
import { PlaneFromSite, type AiClientsList, type PlaneSite } from './planeSite.js';
import { PlaneAiClients } from './planeAiClients.js';
import { desktopStateFor } from './desktopState.js';
import { judgeChargeRequest, type ChargeRequest } from './planeCharge.js';
import type { DesktopPlane, DesktopPlanesOptions, InChargeRef } from './desktopPlanes.js';

export class Plane implements DesktopPlane {
  readonly hub: ViewerHub;
  readonly mode: ModeState;
  readonly sessions = new Set<SessionState>();
  readonly standing: StandingPermissions;
  private stopController = new AbortController();
  /** Display names of the people seen here (windows, the person in charge). */
  private readonly names = new Map<string, string>();
  private entry: DesktopEntry;
  private charge: InChargeRef;
  private current: Permissions;
  private readonly aiClients: PlaneAiClients;
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
    this.aiClients = new PlaneAiClients({
      desktopId: entry.record.id,
      sessions: this.sessions,
      hub: this.hub,
      standing: this.standing,
      site,
    });
    const overlaysChanged = options.overlaysChanged;
    if (overlaysChanged !== undefined) {
      this.hub.overlayFeed.subscribe((change) => overlaysChanged(this.desktopId, change));
      // An overlay the bridge drew counts from when it was handed to the window (its echo,
      // later, changes nothing there: the track keeps one event per drawn overlay).
      this.hub.overlayFeed.subscribePuts((overlay) =>
        overlaysChanged(this.desktopId, { type: 'overlay_put', overlay }),
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
        // The reason names who pressed Stop, for the audit of the calls it ended (audit/decider.ts).
        this.stopController.abort(stopCause(byPersonId));
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
    return this.aiClients.here;
  }

  /** The AI clients of the other bridges of the site changed: the windows here show them too. */
  aiClientsElsewhere(clients: AiClientsList): void {
    this.aiClients.elsewhere(clients);
  }

  /** The AI clients of the whole site on the desktop, as the windows show them (the fleet tile). */
  aiClientsShown(): AiClientsList {
    return this.aiClients.shown();
  }

  /** Whether the control window is open on any bridge: here, or (its lease says) another one. */
  controlWindowOnSite(): boolean {
    return this.hub.control !== undefined || this.site()?.controlElsewhere(this.desktopId) === true;
  }

  /**
   * Another bridge took or gave up the control window: what the windows and the fleet are shown
   * is told again (desktop_state, and HubListener.shownChanged for the fleet feed).
   */
  controlPlaceChanged(): void {
    this.hub.desktopChanged();
  }

  aiClientsChanged(): void {
    this.aiClients.changed();
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
    this.aiClients.close();
    this.hub.stop(reason);
    this.standing.close();
    this.hub.closeAll();
  }

  private describe(peer: ViewerPeer): BridgeToViewer {
    return desktopStateFor(peer, {
      desktopId: this.desktopId,
      desktopName: this.desktopName,
      charge: this.charge,
      watchers: this.hub.watchers(),
      nameOf: (id) => this.names.get(id),
      recording: (viewer) => this.options.recording?.(this.desktopId, viewer),
    });
  }

  private chargeRequested(peer: ViewerPeer, message: ChargeRequest): string | undefined {
    const verdict = judgeChargeRequest(peer, message, this.charge, this.hub.watchers());
    if (verdict.moveTo !== undefined) void this.moveCharge(verdict.moveTo, peer.personId);
    return verdict.refused;
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
