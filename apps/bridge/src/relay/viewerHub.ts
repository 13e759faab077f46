// The viewers connected to this bridge and everything routed through them: roles (the first
// viewer controls, later ones mirror; the oldest mirror is promoted when the control viewer
// leaves), Stop, mirroring the mode, and telling viewers the event interest (kept in
// eventInterest.ts; enforced here: any other `event` a viewer sends is dropped unread).
// Relaying tool calls and approval requests to the control viewer and settling them from its
// answers is callRelay.ts (failed here when that viewer leaves or Stop is pressed); relaying
// the overlay store between the control viewer and mirrors, and the bridge's own copy of it
// (handed to every window that takes control), is overlayRelay.ts.
// A window's mode_set is modeSetRequest.ts.
// What the windows are told about each other (approval queue, AI actions, layout, AI clients,
// take over) is windowsShared.ts. Any window of the person in charge may answer a listed
// approval (approval_answer, relayed to the control window) or make itself the control window
// (take_control).
// In a site of several bridges, what the other bridges' windows list, answer, draw and announce
// is applied through hubSite.ts, and the site's lease decides which bridge's window controls
// (controlElsewhere, claimControl, yieldControl). A screenshot answered as a binary frame is
// settled by imageAnswer.ts.
// Sockets are abstracted as ViewerPeer so this file has no WebSocket code (viewerSocket.ts).
import { randomBytes } from 'node:crypto';
import {
  eventAllowed,
  type DesktopAccessLevel,
  PROTOCOL_VERSION,
  ProtocolError,
  encodeBridgeMessage,
  type BridgeToViewer,
  type EventType,
  type ImageAnswerHeader,
  type Mode,
  type MonitorLayout,
  type ToolArgs,
  type ViewerToolName,
  type Permissions,
  type UiEvent,
  type ViewerToBridge,
  type ToolViewerResult,
} from '@overlay-companion/protocol';
import type { Logger } from 'pino';
import type { ModeState } from '../policy/modeState.js';
import { CallRelay, type CallOptions, type PendingCallInfo } from './callRelay.js';
import { EventInterest } from './eventInterest.js';
import { handleModeSet, modeChangedMessage } from './modeSetRequest.js';
import { HubSite } from './hubSite.js';
import { settleImageAnswer } from './imageAnswer.js';
import { OverlayRelay } from './overlayRelay.js';
import { SharedWindowState } from './windowsShared.js';
import { maskScreenshot } from '../layouts/privacyMasks.js';

export interface ViewerPeer {
  readonly id: string;
  /** A headless viewer has no person watching: approvals go to the MCP client instead. */
  readonly headless: boolean;
  /** The person signed in at this window, and what they may do on this desktop. */
  readonly personId: string;
  readonly access: DesktopAccessLevel;
  send(text: string): void;
  close(code: number, reason: string): void;
}

export type ViewerRole = 'control' | 'mirror';

export interface ViewerHubOptions {
  mode: ModeState;
  /** The person in charge of the desktop: only their windows control (run calls, answer). */
  inCharge: () => string;
  /** What the desktop_state for this window says (who is in charge, who watches, what it may do). */
  describeDesktop?: (peer: ViewerPeer) => BridgeToViewer | undefined;
  /** The person's permission toggles right now. */
  permissions: () => Permissions;
  logger: Logger;
  /** Base URL the person opens, for the "no viewer" guidance. */
  viewerUrl: () => string;
  /** With serve --headless-viewer: the launcher that brings the headless viewer back. */
  headlessLauncher?: () => HeadlessLauncher | undefined;
  /**
   * In a site: relays an approval answered here to the bridge whose control window lists it
   * (site/remoteApprovals.ts); resolves to why it was refused there, if it was.
   */
  answerElsewhere?: (
    person: { personId: string; access: DesktopAccessLevel },
    message: Extract<ViewerToBridge, { type: 'approval_answer' }>,
  ) => Promise<string | undefined> | undefined;
  /**
   * In a site: another bridge holds the desktop's control window (its lease), so a window that
   * opens here is a mirror; the site's leases make one here control once that one is gone
   * (claimControl), one per site.
   */
  controlElsewhere?: () => boolean;
  /** In a site: asks the bridge with the control window for its overlays (hubSite.ts applies). */
  overlaysWanted?: () => void;
}

/** What the hub asks the headless viewer's launcher (headless/headlessViewer.ts). */
export interface HeadlessLauncher {
  /** While it is being relaunched: about how long until its page is back, in ms. */
  backInMs(): number | undefined;
}

/** Chromium's end reaches the launcher a moment after its socket closed here: meanwhile, this. */
const HEADLESS_RELAUNCH_MS = 2_000;

/** What happened to an approval the bridge asked for (for the audit log). */
export interface ApprovalOutcome {
  requestedBy: 'ai' | 'person';
  from: Mode;
  to: Mode;
  approved: boolean;
  /** 'answered' by the person, or how it ended without an answer. */
  how: 'answered' | 'timeout' | 'failed';
}

export type HubListener = {
  event?: (event: UiEvent, viewerId: string) => void;
  /** Stop was pressed (by the person at `byPersonId`'s window) or the bridge stopped all. */
  stop?: (byPersonId: string | undefined) => void;
  /** A window asked to take or hand over the charge (the plane checks and applies it). */
  charge?: (
    peer: ViewerPeer,
    message: Extract<ViewerToBridge, { type: 'charge' }>,
  ) => string | undefined;
  /** Windows came or went (the watchers list). */
  windowsChanged?: () => void;
  /**
   * A window of the person in charge made (by answering the approval of `call`, which waits at
   * that window) or ended a standing permission; the plane checks and applies it.
   */
  standing?: (
    peer: ViewerPeer,
    message: Extract<ViewerToBridge, { type: 'standing_grant' | 'standing_revoke' }>,
    call: PendingCallInfo | undefined,
  ) => string | undefined;
  approval?: (outcome: ApprovalOutcome) => void;
  /** The control window here announced what the AI did (ai_action). */
  aiAction?: (message: Extract<BridgeToViewer, { type: 'ai_action' }>) => void;
  /** The control window here listed what waits for the person (empty: nothing any more). */
  approvalsListed?: (message: Extract<BridgeToViewer, { type: 'approvals_waiting' }>) => void;
  /** The person at `byPersonId`'s window took the desktop from the AI (on) or handed it back. */
  takeOver?: (on: boolean, byPersonId: string | undefined) => void;
};

/**
 * What the viewer and overlay sockets need of the desktops' planes (mcp/desktopPlanes.ts
 * DesktopPlanes): a desktop's hub, and a name to show for a person. Declared here so the relay
 * does not import the MCP side that imports it.
 */
export interface DesktopHubs {
  get(
    desktopId: string,
  ): Promise<
    { readonly hub: ViewerHub; noteName(personId: string, name: string): void } | undefined
  >;
}

export class ViewerHub {
  /** In connection order: the oldest mirror is the first non-control entry. */
  private readonly viewers: ViewerPeer[] = [];
  private controlId: string | undefined;
  private readonly calls = new CallRelay({
    control: () => this.control,
    toViewer: (viewerId, text) => this.peer(viewerId)?.send(text),
    noViewer: () => this.noViewerError(),
    noViewerGuidance: () => this.noViewerGuidance(),
    permissions: () => this.options.permissions(),
  });
  private readonly overlays = new OverlayRelay({
    toViewer: (viewerId, text) => this.peer(viewerId)?.send(text),
    toMirrors: (text) => {
      for (const v of this.viewers) if (v.id !== this.controlId) v.send(text);
    },
  });
  private readonly listeners = new Set<HubListener>();
  private readonly interest = new EventInterest();
  /** What every window is told about the others (and each new one after hello). */
  private readonly shared = new SharedWindowState();
  /** What the other bridges of a site tell this hub, and answers sent to them (hubSite.ts). */
  readonly site = new HubSite({
    control: () => this.control,
    broadcast: (message) => this.broadcast(message),
    shared: this.shared,
    overlays: this.overlays,
    noViewerGuidance: () => this.noViewerGuidance(),
    answerHere: (peer, message) => this.answerElsewhere(peer, message),
    answerElsewhere: () => this.options.answerElsewhere,
  });
  /** When a headless control window last left (the bridge brings it back by itself). */
  private headlessLeftAt: number | undefined;

  constructor(private readonly options: ViewerHubOptions) {
    options.mode.onChange((snapshot) => {
      this.broadcast(modeChangedMessage(snapshot));
      this.calls.revokeDenied(snapshot);
    });
  }

  /** The person saved a layout (or it was loaded): every window follows it at once. */
  setLayout(layout: MonitorLayout | null): void {
    this.broadcast(this.shared.layoutChanged(layout));
  }

  /** The layout the person's windows were last told (undefined: not loaded yet). */
  get currentLayout(): MonitorLayout | null | undefined {
    return this.shared.layout;
  }

  /** The desktop's standing permissions changed: tell every window, and each new one after hello. */
  setStanding(current: () => Extract<BridgeToViewer, { type: 'standing_permissions' }>): void {
    this.broadcast(this.shared.standingChanged(current));
  }

  /** The person's connected AI clients changed: tell every window, and each new one after hello. */
  setAiClients(message: Extract<BridgeToViewer, { type: 'ai_clients' }>): void {
    this.shared.aiClientsChanged(message);
    this.broadcast(message);
  }

  /**
   * The person changed their permission toggles: tell every window, and withdraw waiting calls
   * the new toggles deny (a confirmation approved after the toggle went off cannot act).
   */
  permissionsChanged(): void {
    this.broadcast({ type: 'permissions_changed', permissions: this.options.permissions() });
    this.calls.revokeDenied(this.options.mode.snapshot);
  }

  get size(): number {
    return this.viewers.length;
  }

  get control(): ViewerPeer | undefined {
    return this.viewers.find((v) => v.id === this.controlId);
  }

  roleOf(viewerId: string): ViewerRole | undefined {
    if (!this.viewers.some((v) => v.id === viewerId)) return undefined;
    return viewerId === this.controlId ? 'control' : 'mirror';
  }

  /** Approvals the control window announced as waiting for the person (approvals_waiting). */
  get approvalsWaitingCount(): number {
    return this.shared.approvalsWaitingCount;
  }

  /** The approvals the control window lists, with absolute times (the fleet feed). */
  listedApprovals(): ReturnType<SharedWindowState['listedApprovals']> {
    return this.shared.listedApprovals();
  }

  /**
   * An answer from outside this desktop's windows (the fleet page, another desktop's viewer):
   * checked exactly as a window's approval_answer (only the person in charge, never a view
   * grant) and relayed to the control window the same way. Returns why not, if it was refused.
   */
  answerFor(
    person: { personId: string; access: DesktopAccessLevel },
    message: Extract<ViewerToBridge, { type: 'approval_answer' }>,
  ): string | undefined {
    return this.answerElsewhere(
      { id: 'fleet', headless: false, ...person, send: () => undefined, close: () => undefined },
      message,
    );
  }

  get pendingCalls(): number {
    return this.calls.pendingCalls;
  }

  listen(listener: HubListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** The event types viewers are told to stream, in protocol order. */
  get eventInterest(): EventType[] {
    return this.interest.types;
  }

  /**
   * Sets the event types MCP subscriptions collect (the union over every session) and tells
   * every viewer when that changes, so the person's input is streamed only while asked for.
   */
  setEventInterest(types: Iterable<EventType>): void {
    if (this.interest.set(types)) this.tellInterest();
  }

  newViewerId(): string {
    return `viewer_${randomBytes(6).toString('base64url')}`;
  }

  attach(peer: ViewerPeer): ViewerRole {
    this.viewers.push(peer);
    // Only a window of the person in charge controls: runs the AI's calls and asks for approval.
    // One per site: not while another bridge has it.
    if (
      this.controlId === undefined &&
      peer.personId === this.options.inCharge() &&
      this.options.controlElsewhere?.() !== true
    )
      this.controlId = peer.id;
    // A person's own window takes the role from the headless viewer: with someone there to ask,
    // nothing is asked of the MCP client, and the person sees every request.
    if (
      this.control?.headless === true &&
      !peer.headless &&
      peer.personId === this.options.inCharge()
    ) {
      // (its hello as control follows below)
      this.moveControl(
        peer,
        () =>
          new ProtocolError(
            'viewer_unavailable',
            'The person opened a viewer window, which took over from the headless viewer before this call ran; call again and the person is asked there.',
          ),
        false,
      );
    }
    const role = this.roleOf(peer.id) ?? 'mirror';
    this.sendHello(peer, role);
    // The control window is on another bridge: its overlays, as that bridge keeps them, come here
    // (a plane loaded just now has none of them yet).
    if (role === 'mirror' && this.control === undefined) this.options.overlaysWanted?.();
    this.options.logger.info({ viewerId: peer.id, role, headless: peer.headless }, 'viewer joined');
    this.windowsChanged();
    return role;
  }

  /** The people with a window open, in the order their first window came. */
  watchers(): Array<{ personId: string; access: DesktopAccessLevel }> {
    const seen = new Map<string, DesktopAccessLevel>();
    for (const v of this.viewers) if (!seen.has(v.personId)) seen.set(v.personId, v.access);
    return [...seen].map(([personId, access]) => ({ personId, access }));
  }

  /** Whether `personId` has a window open here. */
  watching(personId: string): boolean {
    return this.viewers.some((v) => v.personId === personId);
  }

  /**
   * The charge moved to another person: what the control window held fails (it was asked of
   * the previous person), and control goes to the oldest window of the new person, if any.
   */
  chargeChanged(reason: string): void {
    const inCharge = this.options.inCharge();
    if (this.control?.personId !== inCharge) {
      this.moveControl(
        this.viewers.find((v) => v.personId === inCharge),
        () =>
          new ProtocolError(
            'cancelled',
            `${reason} Nothing of this call ran. Check list_desktops, then ask the person in charge.`,
          ),
        true,
      );
    }
    // The new person's windows stream what is asked; the previous person's stop.
    this.tellInterest();
    this.desktopChanged();
  }

  /**
   * Moves the control role from the control window (if any) to `to` (none: no window controls):
   * what the old one held fails with `why`, its questions go (every window is told), it hears
   * hello as a mirror, and `to` hears hello as control (with the bridge's overlays) when `greet`.
   */
  private moveControl(to: ViewerPeer | undefined, why: () => ProtocolError, greet: boolean): void {
    const previous = this.control;
    this.controlId = to?.id;
    if (previous !== undefined && previous.id !== to?.id) {
      this.calls.rejectForViewer(previous.id, why);
      this.approvalsChanged(this.shared.controlLeft());
      this.sendHello(previous, 'mirror');
    }
    if (to !== undefined && greet) this.sendHello(to, 'control');
  }

  /**
   * Why `peer` may not answer approvals or take control here, if it may not: only a person's
   * own window (not the headless viewer) of the person in charge, with more than a view grant.
   */
  private notInCharge(peer: ViewerPeer, what: string): string | undefined {
    if (peer.headless) return `${what}: the headless viewer has no person to answer for.`;
    if (peer.personId !== this.options.inCharge() || peer.access === 'view')
      return `${what}: only a window of the person in charge of this desktop may do this; nothing changed.`;
    return undefined;
  }

  /** A window of the person in charge answered a request the control window lists. */
  private answerElsewhere(
    peer: ViewerPeer,
    message: Extract<ViewerToBridge, { type: 'approval_answer' }>,
  ): string | undefined {
    const refused = this.notInCharge(peer, 'approval_answer');
    if (refused !== undefined) return refused;
    const control = this.control;
    if (control === undefined) return this.site.answerThere(peer, message);
    const verdict = this.shared.answered(message.request_id);
    if ('error' in verdict) return verdict.error;
    this.options.logger.info(
      { viewerId: peer.id, requestId: message.request_id, approved: message.approved },
      'approval answered in another window',
    );
    control.send(encodeBridgeMessage(message));
    // The first answer wins: the other windows close the request now, not after a round trip.
    this.toOthers(control.id, verdict.waiting);
    return undefined;
  }

  /** The approvals listed changed: every window here, and the site, are told. */
  private approvalsChanged(
    message: Extract<BridgeToViewer, { type: 'approvals_waiting' }> | undefined,
  ): void {
    if (message === undefined) return;
    this.broadcast(message);
    for (const listener of this.listeners) listener.approvalsListed?.(message);
  }

  /**
   * The site's control window was on another bridge and is gone (its lease expired or was given
   * up): the oldest window here of the person in charge becomes the control window (a person's
   * own before the headless viewer). Returns whether one did.
   */
  claimControl(): boolean {
    if (this.control !== undefined) return false;
    const inCharge = this.options.inCharge();
    const mine = this.viewers.filter((v) => v.personId === inCharge);
    const next = mine.find((v) => !v.headless) ?? mine[0];
    if (next === undefined) return false;
    this.controlId = next.id;
    this.sendHello(next, 'control');
    this.options.logger.info(
      { viewerId: next.id },
      'site: a window here became the control window',
    );
    this.desktopChanged();
    return true;
  }

  /**
   * Another bridge of the site holds the control window (it came first): the one here becomes a
   * mirror, failing what it held (nothing should reach it while another one controls).
   */
  yieldControl(): void {
    if (this.control === undefined) return;
    this.options.logger.info(
      { viewerId: this.controlId },
      'site: the control window is on another bridge; this one is a mirror',
    );
    this.moveControl(
      undefined,
      () =>
        new ProtocolError(
          'viewer_unavailable',
          "Another of the person's windows, on another bridge of the site, is the control window; call again and it runs there.",
        ),
      false,
    );
    this.desktopChanged();
  }

  /**
   * "Make this the control window": `peer` runs the AI's calls and asks the approvals from now
   * on. What the old control window held fails at once (as when it closes); it becomes a mirror.
   */
  private takeControl(peer: ViewerPeer): string | undefined {
    const refused = this.notInCharge(peer, 'take_control');
    if (refused !== undefined) return refused;
    const previous = this.control;
    if (previous?.id === peer.id) return undefined;
    if (previous === undefined && this.options.controlElsewhere?.() === true)
      return "take_control: the control window is one of the person's windows on another bridge of the site; close that one, and this one takes over.";
    // hello hands the new control window the bridge's overlay copy (sendHello).
    this.moveControl(
      peer,
      () =>
        new ProtocolError(
          'viewer_unavailable',
          'The person made another of their windows the control window before this call finished, so it may or may not have happened. Take a screenshot to check, then call again: the new window asks them.',
        ),
      true,
    );
    this.options.logger.info({ viewerId: peer.id, from: previous?.id }, 'control window moved');
    this.desktopChanged();
    return undefined;
  }

  /** Tells every window the desktop_state as it is now (each its own: `you` differs). */
  desktopChanged(): void {
    const describe = this.options.describeDesktop;
    if (describe === undefined) return;
    for (const v of this.viewers) {
      const message = describe(v);
      if (message !== undefined) v.send(encodeBridgeMessage(message));
    }
  }

  /** Closes every window of one person (their access ended), failing what they held. */
  closePerson(personId: string, code: number, reason: string): void {
    for (const viewer of this.viewers.filter((v) => v.personId === personId)) {
      this.detach(viewer.id);
      viewer.close(code, reason);
    }
  }

  private windowsChanged(): void {
    for (const listener of this.listeners) listener.windowsChanged?.();
  }

  detach(viewerId: string): void {
    const index = this.viewers.findIndex((v) => v.id === viewerId);
    if (index < 0) return;
    const left = this.viewers.splice(index, 1)[0];
    const wasControl = viewerId === this.controlId;
    this.options.logger.info({ viewerId, wasControl }, 'viewer left');
    this.windowsChanged();
    if (!wasControl) return;
    this.controlId = undefined;
    if (left?.headless === true) this.headlessLeftAt = Date.now();
    // Fail what it held at once: the AI should not wait out a timeout for a closed window.
    const gone = (): ProtocolError => {
      const noViewer = this.noViewerError();
      return new ProtocolError(
        'viewer_unavailable',
        `The viewer disconnected before answering, so the action may or may not have happened. Take a screenshot to check. ${noViewer.message}`,
        noViewer.retryAfterMs,
      );
    };
    this.calls.rejectForViewer(viewerId, gone);
    // Its questions went with it: tell the other windows nothing waits any more.
    this.approvalsChanged(this.shared.controlLeft());
    const inCharge = this.options.inCharge();
    const next = this.viewers.find((v) => v.personId === inCharge);
    if (next !== undefined) {
      this.controlId = next.id;
      this.sendHello(next, 'control');
      this.options.logger.info({ viewerId: next.id }, 'mirror promoted to control');
    }
  }

  /** While the headless viewer is being brought back: about how long until it is. */
  private headlessBack(): number | undefined {
    if (this.control !== undefined || this.headlessLeftAt === undefined) return undefined;
    const launcher = this.options.headlessLauncher?.();
    if (launcher === undefined) return undefined;
    const back = launcher.backInMs();
    if (back !== undefined) return back;
    return Date.now() - this.headlessLeftAt < HEADLESS_RELAUNCH_MS
      ? HEADLESS_RELAUNCH_MS
      : undefined;
  }

  /** A call finds no window to run it: viewer_unavailable, with a wait when one is coming. */
  noViewerError(): ProtocolError {
    const back = this.headlessBack();
    if (back === undefined) return new ProtocolError('viewer_unavailable', this.noViewerGuidance());
    return new ProtocolError(
      'viewer_unavailable',
      `The headless viewer stopped and the bridge is relaunching it; retry in ${Math.max(1, Math.ceil(back / 1000))} s.`,
      back,
    );
  }

  noViewerGuidance(): string {
    if (this.viewers.length > 0)
      return `The person in charge of this desktop has no window open on it. They must open ${this.options.viewerUrl()} in a browser (and sign in) to let the AI act on it.`;
    return `No viewer is connected. Open ${this.options.viewerUrl()} in a browser (and sign in) to let the AI act on the desktop.`;
  }

  /** Relays a tool call to the control viewer (see CallRelay.call for how it settles). */
  call<N extends ViewerToolName>(
    name: N,
    args: ToolArgs<N>,
    policy: 'allow' | 'confirm',
    options: CallOptions,
  ): Promise<ToolViewerResult<N>> {
    const result = this.calls.call(name, args, policy, options);
    if (name !== 'take_screenshot') return result;
    // Every image the AI gets passes the person's privacy masks here (layouts/privacyMasks.ts).
    const masks = this.shared.layout?.masks ?? [];
    return result.then(
      (shot) =>
        maskScreenshot(shot as ToolViewerResult<'take_screenshot'>, masks) as Promise<
          ToolViewerResult<N>
        >,
    );
  }

  /** Asks the person at the control viewer to approve a mode raise (see CallRelay). */
  async requestModeApproval(
    request: {
      from: Mode;
      to: Mode;
      metadata: Record<string, unknown> | undefined;
      requestedBy: 'ai' | 'person';
    },
    options: CallOptions,
  ): Promise<boolean> {
    const report = (approved: boolean, how: ApprovalOutcome['how']): void => {
      const outcome: ApprovalOutcome = {
        requestedBy: request.requestedBy,
        from: request.from,
        to: request.to,
        approved,
        how,
      };
      for (const listener of this.listeners) listener.approval?.(outcome);
    };
    try {
      const answer = await this.calls.requestModeApproval(request, options);
      report(answer.approved, answer.answered ? 'answered' : 'timeout');
      return answer.approved;
    } catch (err) {
      report(false, 'failed');
      throw err;
    }
  }

  /** The person pressed Stop (or the bridge stops everything): deny all, go passive. */
  stop(reason = 'Stopped by the person.', byPersonId?: string): void {
    const stopped = (): ProtocolError =>
      new ProtocolError(
        'cancelled',
        `Stopped by the person: they pressed Stop in the viewer, which denies every pending call and sets the mode to passive. Wait for them before acting again.`,
      );
    this.calls.rejectAll(stopped);
    this.broadcast({ type: 'stop', reason });
    this.options.mode.set('passive', undefined, 'stop');
    for (const listener of this.listeners) listener.stop?.(byPersonId);
  }

  /**
   * Settles a take_screenshot from its binary answer (imageFrame.ts, already parsed): only when
   * `viewerId` holds that call and the call is a take_screenshot, so a window cannot answer
   * another window's call, nor any other tool, with an image. The image becomes the base64 the
   * result schema checks like any text answer. Returns an error text to send back, if any.
   */
  settleImage(viewerId: string, header: ImageAnswerHeader, image: Uint8Array): string | undefined {
    if (this.roleOf(viewerId) === undefined) return undefined;
    return settleImageAnswer(this.calls, viewerId, header, image);
  }

  /** Routes one parsed message from `viewerId`. Returns an error text to send back, if any. */
  handle(viewerId: string, message: ViewerToBridge): string | undefined {
    const role = this.roleOf(viewerId);
    if (role === undefined) return undefined;
    switch (message.type) {
      case 'tool_result':
      case 'tool_error':
        return this.calls.settleCall(viewerId, message);
      case 'approval':
        return this.calls.settleApproval(viewerId, message);
      case 'approval_answer':
      case 'take_control': {
        const peer = this.peer(viewerId);
        if (peer === undefined) return undefined;
        return message.type === 'take_control'
          ? this.takeControl(peer)
          : this.answerElsewhere(peer, message);
      }
      case 'overlay_created':
      case 'overlay_removed':
      case 'clear_overlays':
      case 'request_sync':
      case 'sync_state':
        return this.overlays.handle(viewerId, role === 'control', message);
      case 'stop_pressed':
        this.options.logger.warn({ viewerId }, 'Stop pressed');
        this.stop('Stopped by the person.', this.peer(viewerId)?.personId);
        return undefined;
      case 'mode_set':
        if (this.peer(viewerId)?.personId !== this.options.inCharge())
          return 'mode_set: only the person in charge of this desktop sets its AI mode; Stop works for everyone.';
        return handleModeSet(
          {
            mode: this.options.mode,
            headless: this.peer(viewerId)?.headless === true,
            logger: this.options.logger,
            requestApproval: (request, options) => this.requestModeApproval(request, options),
          },
          message,
        );
      case 'standing_grant':
      case 'standing_revoke': {
        const peer = this.peer(viewerId);
        if (peer === undefined) return undefined;
        const refused = this.notInCharge(peer, message.type);
        if (refused !== undefined) return refused;
        const call =
          message.type === 'standing_grant'
            ? this.calls.pendingCall(viewerId, message.call_id)
            : undefined;
        for (const listener of this.listeners) {
          const problem = listener.standing?.(peer, message, call);
          if (problem !== undefined) return problem;
        }
        return undefined;
      }
      case 'charge': {
        const peer = this.peer(viewerId);
        if (peer === undefined) return undefined;
        for (const listener of this.listeners) {
          const problem = listener.charge?.(peer, message);
          if (problem !== undefined) return problem;
        }
        return undefined;
      }
      case 'approvals_waiting':
      case 'ai_action':
      case 'take_over': {
        const headless = this.peer(viewerId)?.headless === true;
        if (message.type === 'take_over' && this.peer(viewerId)?.access === 'view')
          return 'take_over: a view-only window cannot take the desktop over; Stop works for everyone.';
        const verdict = this.shared.fromWindow(message, { role, headless });
        if ('error' in verdict) return verdict.error;
        if (verdict.to === 'others') this.toOthers(viewerId, verdict.message);
        else if (verdict.to === 'all') this.broadcast(verdict.message);
        if (message.type === 'approvals_waiting' && verdict.to !== 'nobody')
          for (const listener of this.listeners) listener.approvalsListed?.(message);
        if (message.type === 'ai_action' && verdict.to !== 'nobody')
          for (const listener of this.listeners) listener.aiAction?.(message);
        if (message.type === 'take_over') {
          const by = this.peer(viewerId)?.personId;
          for (const listener of this.listeners) listener.takeOver?.(message.on, by);
        }
        return undefined;
      }
      case 'event':
        // Defence in depth: a viewer that has not heard event_interest yet (or an older or
        // misbehaving one) may send what nobody asked for, or what the person's toggles no
        // longer allow. Drop it here, unbuffered and without an error back: the race after an
        // unsubscribe or a toggle is normal, not a fault.
        if (!this.interest.has(message.event.type)) return undefined;
        // Only the person in charge agreed (by their toggles) to let the AI read what they do;
        // a watcher's pointer and keys never reach that AI.
        if (this.peer(viewerId)?.personId !== this.options.inCharge()) return undefined;
        if (!eventAllowed(this.options.permissions(), message.event.type)) return undefined;
        for (const listener of this.listeners) listener.event?.(message.event, viewerId);
        return undefined;
      default: {
        const unknownMessage: never = message;
        void unknownMessage;
        return undefined;
      }
    }
  }

  /** Closes every viewer socket (bridge shutdown) after failing what they hold. */
  closeAll(): void {
    for (const viewer of [...this.viewers]) {
      this.detach(viewer.id);
      viewer.close(1001, 'The bridge is shutting down.');
    }
  }

  /** The person's overlays as the bridge keeps them (for /ws/overlays). */
  get overlayFeed(): Pick<OverlayRelay, 'subscribe' | 'syncMessage'> {
    return this.overlays;
  }

  private sendHello(peer: ViewerPeer, role: ViewerRole): void {
    peer.send(
      encodeBridgeMessage({
        type: 'hello',
        protocol_version: PROTOCOL_VERSION,
        viewer_id: peer.id,
        mode: this.options.mode.mode,
        role,
        headless: peer.headless,
        permissions: this.options.permissions(),
      }),
    );
    // hello carries the mode but not a custom policy; send it so the viewer can show it.
    const snapshot = this.options.mode.snapshot;
    if (snapshot.mode === 'custom') peer.send(encodeBridgeMessage(modeChangedMessage(snapshot)));
    // A viewer forgets the interest on every hello and streams every type until told; tell it
    // at once (an empty list when nobody subscribed).
    peer.send(encodeBridgeMessage(this.interestFor(peer)));
    // A window taking control gets the overlays as the bridge has them: it keeps the newer of
    // that and its own store (and announces its own, which the bridge keeps if newer).
    if (role === 'control') peer.send(encodeBridgeMessage(this.overlays.syncMessage()));
    for (const message of this.shared.afterHello(role))
      if (this.mayHear(peer, message)) peer.send(encodeBridgeMessage(message));
    // desktop_state follows from windowsChanged (attach) and chargeChanged, to every window.
  }

  /**
   * What `peer` is asked to stream: only the windows of the person in charge stream anything
   * (the bridge drops a watcher's events unread anyway); a watcher's window is told none, so it
   * sends nothing of its person's and never says an AI follows their pointer or reads their keys.
   */
  private interestFor(peer: ViewerPeer): BridgeToViewer {
    return peer.personId === this.options.inCharge()
      ? this.interest.message()
      : { type: 'event_interest', events: [] };
  }

  /** Tells every window what to stream (the interest or the charge changed). */
  private tellInterest(): void {
    for (const v of this.viewers) v.send(encodeBridgeMessage(this.interestFor(v)));
  }

  private peer(id: string): ViewerPeer | undefined {
    return this.viewers.find((v) => v.id === id);
  }

  /** Every window but `viewerId` (the one that said it). */
  private toOthers(viewerId: string, message: BridgeToViewer): void {
    const text = encodeBridgeMessage(message);
    for (const v of this.viewers) if (v.id !== viewerId && this.mayHear(v, message)) v.send(text);
  }

  private broadcast(message: BridgeToViewer): void {
    const text = encodeBridgeMessage(message);
    for (const v of this.viewers) if (this.mayHear(v, message)) v.send(text);
  }

  /**
   * The questions waiting for the person in charge (what the AI wants to type, where it wants to
   * click) are theirs: a watcher's window hears only that nothing waits (which clears a list it
   * kept from when its person was in charge).
   */
  private mayHear(peer: ViewerPeer, message: BridgeToViewer): boolean {
    if (message.type !== 'approvals_waiting' || message.requests.length === 0) return true;
    return peer.personId === this.options.inCharge();
  }
}
