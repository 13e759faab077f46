// A desktop plane's part in a site of several bridges (desktopPlanes.ts owns the plane): what it
// tells the other bridges (`PlaneSite`, published by site/joinSite.ts), and what they told it,
// applied here (`PlaneFromSite`) — a mode change, Stop, the desktop removed, standing permissions
// changed, and the whole policy read again from the store after the bus was away. A change told
// by another bridge is applied without being told again, written again or audited again: while
// one is applied, `active` is true and the plane's own listeners stand back.
import {
  Mode as ModeSchema,
  type BridgeToViewer,
  type DesktopAccessLevel,
  type ViewerToBridge,
} from '@overlay-companion/protocol';
import type { Logger } from 'pino';
import type { ModeSnapshot, ModeState } from '../policy/modeState.js';
import type { StandingPermissions } from '../policy/standingPermissions.js';
import type { OverlayChange } from '../relay/overlayRelay.js';
import type { ViewerHub } from '../relay/viewerHub.js';
import type { DesktopPolicyRecord } from '../store/types.js';

/** What a plane tells the other bridges of its site (site/joinSite.ts publishes it). */
export interface PlaneSite {
  modeChanged(desktopId: string, inChargeId: string, snapshot: ModeSnapshot): void;
  stopped(desktopId: string, byPersonId: string | undefined): void;
  /** Told once the new list is in the store (the other bridges read it there). */
  standingChanged(desktopId: string): void;
  /** Told once the new toggles are in the store; settles once the others applied them (bounded). */
  permissionsChanged(personId: string): Promise<void>;
  /** The desktop's record, grants or charge changed (in the store): the others reload it. */
  desktopChanged(desktopId: string): void;
  /** The control window here listed the approvals waiting (the others' windows show them). */
  approvalsListed(
    desktopId: string,
    inChargeId: string,
    message: Extract<BridgeToViewer, { type: 'approvals_waiting' }>,
  ): void;
  /** An approval answered here, for the control window on another bridge (why not, if refused). */
  answerApproval(
    desktopId: string,
    person: { personId: string; access: DesktopAccessLevel },
    message: Extract<ViewerToBridge, { type: 'approval_answer' }>,
  ): Promise<string | undefined>;
  /** The control window here changed the overlays (the others' windows and feeds follow). */
  overlaysChanged(desktopId: string, change: OverlayChange): void;
  /** The control window here announced what the AI did (the others' windows draw it). */
  aiAction(desktopId: string, message: Extract<BridgeToViewer, { type: 'ai_action' }>): void;
  /** The AI clients with a session on the desktop here changed (the others merge them in). */
  aiClientsListed(
    desktopId: string,
    message: Extract<BridgeToViewer, { type: 'ai_clients' }>,
  ): void;
  /** A window here took the desktop over or handed it back (every bridge's windows hear it). */
  takeOver(desktopId: string, on: boolean): void;
  /** Asks the bridge with the control window for its overlays (applied here when they come). */
  overlaysWanted(desktopId: string): void;
  /** Whether another bridge holds the desktop's control window (as its lease says). */
  controlElsewhere(desktopId: string): boolean;
  /** The AI clients the other bridges listed for the desktop so far (for a plane made later). */
  aiClientsListedElsewhere(desktopId: string): AiClientsList;
}

export type AiClientsList = Extract<BridgeToViewer, { type: 'ai_clients' }>['clients'];

/** What the site applies to a plane (site/joinSite.ts, site/windowsAcrossSite.ts). */
export interface SitePlane {
  readonly fromSite: PlaneFromSite;
  /** This bridge's AI clients on the desktop, as last listed (a site tells them again). */
  readonly aiClientsHere: AiClientsList;
  /** The AI clients of the other bridges of the site changed: the windows here show them too. */
  aiClientsElsewhere(clients: AiClientsList): void;
  /** Another bridge took or gave up the control window (the fleet tile shows where it is). */
  controlPlaceChanged(): void;
}

/** The parts of its plane that what other bridges told changes. */
export interface PlaneParts {
  readonly desktopId: string;
  readonly logger: Logger;
  mode(): ModeState;
  standing(): StandingPermissions;
  hub(): ViewerHub;
  /** The person in charge here now. */
  inChargeId(): string;
  /** The plane's stored policy (desktop_policy). */
  readPolicy(): Promise<DesktopPolicyRecord | undefined>;
  /** Settles once the plane's store writes queued so far have landed (or failed). */
  writesDone(): Promise<void>;
  close(reason: string): void;
}

export class PlaneFromSite {
  /** True while a change another bridge made is applied: it is not told, written or audited again. */
  active = false;
  /** Mode changes so far, and when the last one was (a store read does not undo a newer one). */
  private modeChanges = 0;
  private modeChangedAt = 0;

  constructor(private readonly plane: PlaneParts) {}

  /** The plane's mode changed (here or told): counted, for policyFromStore. */
  noteModeChange(): void {
    this.modeChanges += 1;
    this.modeChangedAt = Date.now();
  }

  /** Another bridge of the site changed the mode (for `inChargeId`, as it saw the charge). */
  modeSetElsewhere(inChargeId: string, snapshot: ModeSnapshot): void {
    const here = this.plane.inChargeId();
    if (inChargeId !== here) {
      this.plane.logger.info(
        { inChargeId, here },
        'site: a mode change for another person in charge was not applied',
      );
      return;
    }
    this.apply(() => this.plane.mode().set(snapshot.mode, snapshot.metadata, 'person'));
  }

  /** The desktop was removed on another bridge of the site. */
  closedElsewhere(reason: string): void {
    this.apply(() => this.plane.close(reason));
  }

  /** Someone pressed Stop on another bridge of the site: what waits here is denied too. */
  stoppedElsewhere(byPersonId: string | undefined, reason: string): void {
    this.apply(() => this.plane.hub().stop(reason, byPersonId));
  }

  /** Another bridge of the site changed the standing permissions: read them from the store. */
  async standingChangedElsewhere(): Promise<void> {
    // Behind this plane's own writes, so a read never lands before a write made here earlier.
    await this.plane.writesDone();
    const mine = this.mine(await this.plane.readPolicy());
    this.apply(() =>
      this.plane.standing().restore(mine?.standing ?? [], mine?.standingCounter ?? 0),
    );
  }

  /**
   * The site's bus was away and is back: what other bridges said meanwhile may be lost, so the
   * mode and the standing permissions are read again from the store, where they were written.
   */
  async policyFromStore(): Promise<void> {
    await this.plane.writesDone();
    const changesBefore = this.modeChanges;
    const stored = await this.plane.readPolicy();
    const mine = this.mine(stored);
    const mode = ModeSchema.safeParse(mine?.mode);
    // A mode set (here, or told by another bridge) while the row was read, or after the row was
    // written, is newer than the row: the bridge that set it writes it behind the change, so the
    // store may not have it yet (a Stop told a moment ago must not be undone by an older row).
    const newer =
      this.modeChanges !== changesBefore ||
      (stored !== undefined && stored.updatedAt < this.modeChangedAt);
    this.apply(() => {
      const state = this.plane.mode();
      if (!newer && mode.success && (mode.data !== state.mode || mode.data === 'custom'))
        state.set(mode.data, mine?.modeMetadata ?? undefined, 'person');
      this.plane.standing().restore(mine?.standing ?? [], mine?.standingCounter ?? 0);
    });
  }

  /** Applies a change another bridge made (not told, written or audited again). */
  apply(change: () => void): void {
    this.active = true;
    try {
      change();
    } finally {
      this.active = false;
    }
  }

  /** The stored policy if it is the person in charge's (another person's is not). */
  private mine(stored: DesktopPolicyRecord | undefined): DesktopPolicyRecord | undefined {
    return stored?.personId === this.plane.inChargeId() ? stored : undefined;
  }
}
