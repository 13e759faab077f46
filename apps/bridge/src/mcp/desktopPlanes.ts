// One control plane per person: their mode, their permission toggles, their viewer windows (the
// hub), their Stop, and the MCP sessions that act for them. Tool calls made with a person's
// token reach only that person's windows, approvals are asked in and answered from only those
// windows, and one person's Stop or mode never touches another's. Planes are made on first use
// (a viewer connecting, a token calling) and dropped when the person is removed.
import {
  EVENT_PERMISSIONS,
  permittedEventTypes,
  type Mode,
  type Permissions,
  type PermissionsPatch,
  type UiEvent,
} from '@overlay-companion/protocol';
import type { Logger } from 'pino';
import { ModeState, type ModeChangeSource, type ModeSnapshot } from '../policy/modeState.js';
import { ViewerHub, type ApprovalOutcome } from '../relay/viewerHub.js';
import type { Store } from '../store/types.js';
import type { SessionState } from './toolkit.js';
import { readLayout } from '../api/layout.js';
import { aiClientsMessage } from './aiClients.js';

export interface PersonPlane {
  readonly personId: string;
  readonly hub: ViewerHub;
  readonly mode: ModeState;
  /** The person's toggles right now. */
  permissions(): Permissions;
  /** Aborts when the person presses Stop; a fresh signal after each Stop. */
  stopSignal(): AbortSignal;
  /** The MCP sessions acting for this person (for the event interest). */
  readonly sessions: Set<SessionState>;
  /** Recomputes which event types this person's windows must stream. */
  updateEventInterest(): void;
  /** A session began, ended or made a call: the windows' AI-clients list follows (coalesced). */
  aiClientsChanged(): void;
}

/** At most one AI-clients update per person this often (each tool call counts as a change). */
const AI_CLIENTS_COALESCE_MS = 500;

/** What the planes report, for the audit log. */
export interface PlaneObserver {
  modeChanged?(
    personId: string,
    snapshot: ModeSnapshot,
    from: Mode,
    source: ModeChangeSource,
  ): void;
  approval?(personId: string, outcome: ApprovalOutcome): void;
  stopped?(personId: string): void;
}

export interface PersonPlanesOptions {
  store: Store;
  logger: Logger;
  /** Starting mode of every person's plane (serve --mode); assist by default. */
  initialMode: Mode;
  /** Base URL the person opens, for the "no viewer" guidance. */
  viewerUrl: () => string;
  observer?: PlaneObserver;
}

class Plane implements PersonPlane {
  readonly hub: ViewerHub;
  readonly mode: ModeState;
  readonly sessions = new Set<SessionState>();
  private stopController = new AbortController();
  private aiClientsTimer: NodeJS.Timeout | undefined;

  constructor(
    readonly personId: string,
    private current: Permissions,
    options: PersonPlanesOptions,
  ) {
    this.mode = new ModeState(options.initialMode);
    const logger = options.logger.child({ personId });
    let previous = this.mode.mode;
    this.mode.onChange((snapshot, source) => {
      options.observer?.modeChanged?.(personId, snapshot, previous, source);
      previous = snapshot.mode;
    });
    this.hub = new ViewerHub({
      mode: this.mode,
      permissions: () => this.current,
      logger: logger.child({ part: 'viewers' }),
      viewerUrl: options.viewerUrl,
    });
    this.hub.listen({
      event: (event) => {
        for (const session of this.sessions) session.events.push(event);
      },
      stop: () => {
        this.stopController.abort();
        this.stopController = new AbortController();
        options.observer?.stopped?.(personId);
      },
      approval: (outcome) => options.observer?.approval?.(personId, outcome),
    });
  }

  permissions(): Permissions {
    return this.current;
  }

  stopSignal(): AbortSignal {
    return this.stopController.signal;
  }

  setPermissions(next: Permissions): void {
    this.current = next;
    // Events collected while a toggle was on but not read yet go with it (a key press typed
    // just before the person turned key reading off stays private).
    const allowed = (event: UiEvent): boolean => next[EVENT_PERMISSIONS[event.type]];
    for (const session of this.sessions) session.events.forget(allowed);
    this.hub.permissionsChanged();
    this.updateEventInterest();
  }

  aiClientsChanged(): void {
    if (this.aiClientsTimer !== undefined) return;
    this.aiClientsTimer = setTimeout(() => {
      this.aiClientsTimer = undefined;
      this.hub.setAiClients(aiClientsMessage(this.sessions));
    }, AI_CLIENTS_COALESCE_MS);
    this.aiClientsTimer.unref();
  }

  updateEventInterest(): void {
    // Only what some session collects AND the person allows is ever streamed.
    const wanted = [...this.sessions].flatMap((session) => [...session.events.types()]);
    this.hub.setEventInterest(permittedEventTypes(new Set(wanted), this.current));
  }
}

export class PersonPlanes {
  private readonly planes = new Map<string, Promise<Plane>>();

  constructor(private readonly options: PersonPlanesOptions) {}

  /** The person's plane, made (with their stored permissions) on first use. */
  get(personId: string): Promise<PersonPlane> {
    let plane = this.planes.get(personId);
    if (plane === undefined) {
      plane = Promise.all([
        this.options.store.permissions.get(personId),
        readLayout(this.options.store, personId),
      ]).then(([permissions, saved]) => {
        const made = new Plane(personId, permissions, this.options);
        // The person's map (monitors, privacy masks) reaches every window after hello.
        made.hub.setLayout(saved?.layout ?? null);
        return made;
      });
      // A failed load must not stay cached: the next call tries again.
      plane.catch(() => this.planes.delete(personId));
      this.planes.set(personId, plane);
    }
    return plane;
  }

  /** Stores a change to the person's toggles and applies it to their plane at once. */
  async updatePermissions(personId: string, patch: PermissionsPatch): Promise<Permissions> {
    const next = await this.options.store.permissions.update(personId, patch);
    const plane = await this.planes.get(personId);
    plane?.setPermissions(next);
    return next;
  }

  /** A removed or disabled person: Stop everything they had waiting and forget the plane. */
  async drop(personId: string, reason: string): Promise<void> {
    const plane = await this.planes.get(personId)?.catch(() => undefined);
    this.planes.delete(personId);
    if (plane === undefined) return;
    plane.hub.stop(reason);
    plane.hub.closeAll();
  }

  /** The planes made so far (for /metrics: viewers and approvals waiting). */
  async loaded(): Promise<PersonPlane[]> {
    const all = await Promise.all([...this.planes.values()].map((p) => p.catch(() => undefined)));
    return all.filter((plane): plane is Plane => plane !== undefined);
  }

  async closeAll(): Promise<void> {
    const all = await Promise.all([...this.planes.values()].map((p) => p.catch(() => undefined)));
    for (const plane of all) plane?.hub.closeAll();
    this.planes.clear();
  }
}
