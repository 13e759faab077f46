// One desktop's viewer windows and their roles: the first window of the person in charge
// controls (runs the AI's calls, asks the approvals), later ones mirror; the oldest of that
// person's windows is promoted when the control window leaves, the charge moves, a window takes
// control, or (in a site) the site's lease decides (controlElsewhere, claimControl,
// yieldControl). When the control role moves, what the old window held fails and its questions
// go. The hub also applies Stop and mirrors the mode and the person's shared state to every
// window. Its parts: the windows and who may hear what (viewerList.ts), which one controls and
// how that moves (controlRole.ts), hello (viewerHello.ts),
// routing a window's messages (viewerMessages.ts), relaying calls and approvals (callRelay.ts),
// the overlay store (overlayRelay.ts), what the windows share (windowsShared.ts), the event
// interest (eventInterest.ts), the "no viewer" answer (noViewer.ts), mode_set
// (modeSetRequest.ts), a site's other bridges (hubSite.ts) and binary screenshots
// (imageAnswer.ts). Sockets are ViewerPeer (viewerPeer.ts), made by viewerSocket.ts.
import { randomBytes } from 'node:crypto';
import {
  type DesktopAccessLevel,
  ProtocolError,
  encodeBridgeMessage,
  type BridgeToViewer,
  type EventType,
  type ImageAnswerHeader,
  type Mode,
  type MonitorLayout,
  type DrawOverlayArgs,
  type ToolArgs,
  type ViewerToolName,
  type ViewerToBridge,
  type ToolViewerResult,
} from '@overlay-companion/protocol';
import { CallRelay, type CallOptions, type ModeApprovalAnswer } from './callRelay.js';
import { EventInterest } from './eventInterest.js';
import { modeChangedMessage } from './modeSetRequest.js';
import { HubSite } from './hubSite.js';
import { settleImageAnswer } from './imageAnswer.js';
import { OverlayRelay } from './overlayRelay.js';
import { drawHere } from './settledOverlays.js';
import { SharedWindowState } from './windowsShared.js';
import { NoViewer } from './noViewer.js';
import { interestFor, sendHello, type HelloSources } from './viewerHello.js';
import { routeViewerMessage, type MessageRoutes } from './viewerMessages.js';
import { ViewerList } from './viewerList.js';
import { ControlRole } from './controlRole.js';
import type { ViewerPeer, ViewerRole } from './viewerPeer.js';
import type { ApprovalOutcome, HubListener, ViewerHubOptions } from './hubWiring.js';
import { maskScreenshot } from '../layouts/privacyMasks.js';

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
  /** The windows, in connection order, and which one controls. */
  private readonly windows = new ViewerList(() => this.options.inCharge());
  private readonly noViewer = new NoViewer({
    hasControl: () => this.control !== undefined,
    windowCount: () => this.windows.all.length,
    viewerUrl: () => this.options.viewerUrl(),
    headlessLauncher: () => this.options.headlessLauncher?.(),
  });
  private readonly calls = new CallRelay({
    control: () => this.control,
    toViewer: (viewerId, text) => this.peer(viewerId)?.send(text),
    noViewer: () => this.noViewerError(),
    noViewerGuidance: () => this.noViewerGuidance(),
    permissions: () => this.options.permissions(),
    receipts: () => this.options.receipts,
  });
  private readonly overlays = new OverlayRelay({
    toViewer: (viewerId, text) => this.peer(viewerId)?.send(text),
    toMirrors: (text) => this.windows.toMirrors(text),
  });
  private readonly listeners = new Set<HubListener>();
  private readonly interest = new EventInterest();
  /** What every window is told about the others (and each new one after hello). */
  private readonly shared = new SharedWindowState();
  /** Which window controls, and moving that role (controlRole.ts). */
  private readonly role: ControlRole;
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
  /** What hello and the interest messages are made of. */
  private readonly helloSources: HelloSources;
  /** What routing a window's message needs of the hub (viewerMessages.ts). */
  private readonly routes: MessageRoutes;

  constructor(private readonly options: ViewerHubOptions) {
    this.role = new ControlRole({
      windows: this.windows,
      calls: this.calls,
      shared: this.shared,
      noViewer: this.noViewer,
      options,
      sendHello: (peer, role) => this.sendHello(peer, role),
      approvalsChanged: (message) => this.approvalsChanged(message),
      desktopChanged: () => this.desktopChanged(),
    });
    this.helloSources = {
      mode: options.mode,
      permissions: () => options.permissions(),
      inCharge: () => options.inCharge(),
      interest: this.interest,
      overlays: this.overlays,
      shared: this.shared,
      windows: this.windows,
    };
    this.routes = {
      windows: this.windows,
      calls: this.calls,
      overlays: this.overlays,
      shared: this.shared,
      interest: this.interest,
      listeners: this.listeners,
      mode: options.mode,
      logger: options.logger,
      inCharge: () => options.inCharge(),
      permissions: () => options.permissions(),
      takeControl: (peer) => this.role.take(peer),
      answer: (peer, message) => this.answerElsewhere(peer, message),
      stop: (reason, byPersonId) => this.stop(reason, byPersonId),
      requestModeApproval: (request, options) => this.requestModeApproval(request, options),
      broadcast: (message) => this.broadcast(message),
    };
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
    return this.windows.all.length;
  }

  get control(): ViewerPeer | undefined {
    return this.windows.control;
  }

  roleOf(viewerId: string): ViewerRole | undefined {
    return this.windows.roleOf(viewerId);
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
    this.windows.all.push(peer);
    this.role.joined(peer);
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
    return this.windows.watchers();
  }

  /** Whether `personId` has a window open here. */
  watching(personId: string): boolean {
    return this.windows.watching(personId);
  }

  /**
   * The charge moved to another person: what the control window held fails (it was asked of
   * the previous person), and control goes to the oldest window of the new person, if any.
   */
  chargeChanged(reason: string): void {
    this.role.chargeMoved(reason);
    // The new person's windows stream what is asked; the previous person's stop.
    this.tellInterest();
    this.desktopChanged();
  }

  /** A window of the person in charge answered a request the control window lists. */
  private answerElsewhere(
    peer: ViewerPeer,
    message: Extract<ViewerToBridge, { type: 'approval_answer' }>,
  ): string | undefined {
    const refused = this.windows.notInCharge(peer, 'approval_answer');
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
    this.windows.toOthers(control.id, verdict.waiting);
    this.shownChanged();
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
   * up): a window here of the person in charge becomes the control window (controlRole.ts).
   * Returns whether one did.
   */
  claimControl(): boolean {
    return this.role.claim();
  }

  /** Another bridge of the site holds the control window: the one here becomes a mirror. */
  yieldControl(): void {
    this.role.yield();
  }

  /** Tells every window the desktop_state as it is now (each its own: `you` differs). */
  desktopChanged(): void {
    this.shownChanged();
    const describe = this.options.describeDesktop;
    if (describe === undefined) return;
    for (const v of this.windows.all) {
      const message = describe(v);
      if (message !== undefined) v.send(encodeBridgeMessage(message));
    }
  }

  /** Closes every window of one person (their access ended), failing what they held. */
  closePerson(personId: string, code: number, reason: string): void {
    for (const viewer of this.windows.all.filter((v) => v.personId === personId)) {
      this.detach(viewer.id);
      viewer.close(code, reason);
    }
  }

  private windowsChanged(): void {
    for (const listener of this.listeners) listener.windowsChanged?.();
    this.shownChanged();
  }

  /** Tells the listeners what the windows are shown may have changed (see HubListener). */
  private shownChanged(): void {
    for (const listener of this.listeners) listener.shownChanged?.();
  }

  detach(viewerId: string): void {
    const index = this.windows.all.findIndex((v) => v.id === viewerId);
    if (index < 0) return;
    const left = this.windows.all.splice(index, 1)[0];
    const wasControl = viewerId === this.windows.controlId;
    this.options.logger.info({ viewerId, wasControl }, 'viewer left');
    this.windowsChanged();
    if (wasControl && left !== undefined) this.role.left(left);
  }

  /** A call finds no window to run it: viewer_unavailable, with a wait when one is coming. */
  noViewerError(): ProtocolError {
    return this.noViewer.error();
  }

  noViewerGuidance(): string {
    return this.noViewer.guidance();
  }

  /**
   * Draws a plain draw_overlay here and hands it to the control window; undefined when only the
   * control window can answer it (settledOverlays.ts), and then the call is relayed.
   */
  drawHere(args: DrawOverlayArgs): ToolViewerResult<'draw_overlay'> | undefined {
    return drawHere(args, {
      control: this.control,
      desktop: this.options.desktopSize?.(),
      layout: this.shared.layout,
      overlays: this.overlays,
    });
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
  ): Promise<ModeApprovalAnswer> {
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
      return answer;
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
    return routeViewerMessage(this.routes, viewerId, message);
  }

  /** Closes every viewer socket (bridge shutdown) after failing what they hold. */
  closeAll(): void {
    for (const viewer of [...this.windows.all]) {
      this.detach(viewer.id);
      viewer.close(1001, 'The bridge is shutting down.');
    }
  }

  /** The person's overlays as the bridge keeps them (for /ws/overlays). */
  get overlayFeed(): Pick<OverlayRelay, 'subscribe' | 'subscribePuts' | 'syncMessage'> {
    return this.overlays;
  }

  private sendHello(peer: ViewerPeer, role: ViewerRole): void {
    sendHello(this.helloSources, peer, role);
  }

  /** Tells every window what to stream (the interest or the charge changed). */
  private tellInterest(): void {
    for (const v of this.windows.all)
      v.send(encodeBridgeMessage(interestFor(this.helloSources, v)));
  }

  private peer(id: string): ViewerPeer | undefined {
    return this.windows.peer(id);
  }

  /** Every window is told (the mode, the approvals, the AI clients, Stop…): so is the fleet. */
  private broadcast(message: BridgeToViewer): void {
    this.windows.broadcast(message);
    // What the AI did (a site's, drawn here) is shown in no tile: not worth a re-read per input.
    if (message.type !== 'ai_action') this.shownChanged();
  }
}
