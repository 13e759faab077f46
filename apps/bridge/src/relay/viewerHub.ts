// The viewers connected to this bridge and everything routed through them: roles (the first
// viewer controls, later ones mirror; the oldest mirror is promoted when the control viewer
// leaves), relaying tool calls and approval requests to the control viewer and settling them
// from its answers, Stop, mirroring the mode, and telling viewers the event interest (kept in
// eventInterest.ts; enforced here: any other `event` a viewer sends is dropped unread).
// Relaying the overlay store between the control viewer and mirrors is overlayRelay.ts.
// Sockets are abstracted as ViewerPeer so this file has no WebSocket code (viewerSocket.ts).
import { randomBytes } from 'node:crypto';
import {
  PROTOCOL_VERSION,
  ProtocolError,
  decidePolicy,
  encodeBridgeMessage,
  isModeRaise,
  parseToolResult,
  type BridgeToViewer,
  type EventType,
  type Mode,
  type ToolArgs,
  type ToolCallMessage,
  type ToolName,
  type UiEvent,
  type ViewerToBridge,
  type ToolViewerResult,
} from '@overlay-companion/protocol';
import type { Logger } from 'pino';
import type { ModeSnapshot, ModeState } from '../policy/modeState.js';
import { EventInterest } from './eventInterest.js';
import { OverlayRelay } from './overlayRelay.js';
import { PendingTable } from './pendingCalls.js';

export interface ViewerPeer {
  readonly id: string;
  /** A headless viewer has no person watching: approvals go to the MCP client instead. */
  readonly headless: boolean;
  send(text: string): void;
  close(code: number, reason: string): void;
}

export type ViewerRole = 'control' | 'mirror';

/** A ProtocolError the viewer reported (tool_error), as opposed to one the bridge raised. */
export class ViewerReportedError extends ProtocolError {}

export interface ViewerHubOptions {
  mode: ModeState;
  logger: Logger;
  /** Base URL the person opens, for the "no viewer" guidance. */
  viewerUrl: () => string;
}

export interface CallOptions {
  timeoutMs: number;
  signal?: AbortSignal | undefined;
}

export type HubListener = {
  event?: (event: UiEvent, viewerId: string) => void;
  stop?: () => void;
};

export class ViewerHub {
  /** In connection order: the oldest mirror is the first non-control entry. */
  private readonly viewers: ViewerPeer[] = [];
  private controlId: string | undefined;
  private readonly calls = new PendingTable<Record<string, unknown>>();
  private readonly callNames = new Map<string, ToolName>();
  private readonly approvals = new PendingTable<boolean>();
  private readonly overlays = new OverlayRelay({
    control: () => this.control,
    toViewer: (viewerId, text) => this.peer(viewerId)?.send(text),
    toMirrors: (text) => {
      for (const v of this.viewers) if (v.id !== this.controlId) v.send(text);
    },
  });
  private readonly listeners = new Set<HubListener>();
  private readonly interest = new EventInterest();
  private counter = 0;

  constructor(private readonly options: ViewerHubOptions) {
    options.mode.onChange((snapshot) => {
      this.broadcast(modeChanged(snapshot));
      this.revokeDenied(snapshot);
    });
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

  get pendingCalls(): number {
    return this.calls.size;
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
    if (this.interest.set(types)) this.broadcast(this.interest.message());
  }

  newViewerId(): string {
    return `viewer_${randomBytes(6).toString('base64url')}`;
  }

  attach(peer: ViewerPeer): ViewerRole {
    this.viewers.push(peer);
    if (this.controlId === undefined) this.controlId = peer.id;
    const role = this.roleOf(peer.id) ?? 'mirror';
    this.sendHello(peer, role);
    this.options.logger.info({ viewerId: peer.id, role, headless: peer.headless }, 'viewer joined');
    return role;
  }

  detach(viewerId: string): void {
    const index = this.viewers.findIndex((v) => v.id === viewerId);
    if (index < 0) return;
    this.viewers.splice(index, 1);
    this.overlays.forget(viewerId);
    const wasControl = viewerId === this.controlId;
    this.options.logger.info({ viewerId, wasControl }, 'viewer left');
    if (!wasControl) return;
    this.controlId = undefined;
    // Fail what it held at once: the AI should not wait out a timeout for a closed window.
    const gone = (): ProtocolError =>
      new ProtocolError(
        'viewer_unavailable',
        `The viewer disconnected before answering, so the action may or may not have happened. Take a screenshot to check. ${this.noViewerGuidance()}`,
      );
    for (const id of this.calls.rejectForViewer(viewerId, gone)) this.callNames.delete(id);
    this.approvals.rejectForViewer(viewerId, gone);
    const next = this.viewers[0];
    if (next !== undefined) {
      this.controlId = next.id;
      this.sendHello(next, 'control');
      this.options.logger.info({ viewerId: next.id }, 'mirror promoted to control');
    }
  }

  noViewerGuidance(): string {
    return `No viewer is connected. Open ${this.options.viewerUrl()} in a browser (and sign in) to let the AI act on the desktop.`;
  }

  /**
   * Relays a validated call to the control viewer and resolves with its validated result.
   * Rejects with ProtocolError: viewer_unavailable (none, or it left), timeout, cancelled, the
   * viewer's own tool_error, or system_error for a malformed result.
   */
  async call<N extends ToolName>(
    name: N,
    args: ToolArgs<N>,
    policy: 'allow' | 'confirm',
    options: CallOptions,
  ): Promise<ToolViewerResult<N>> {
    const control = this.control;
    if (control === undefined)
      throw new ProtocolError('viewer_unavailable', this.noViewerGuidance());
    const id = this.nextId('call');
    const message = {
      type: 'tool_call',
      id,
      name,
      args,
      policy,
      deadline_ms: options.timeoutMs,
    } as ToolCallMessage;
    const answer = this.calls.wait(id, {
      viewerId: control.id,
      timeoutMs: options.timeoutMs,
      signal: options.signal,
      onTimeout: () => {
        this.cancelOnViewer(id, 'The bridge stopped waiting (timeout).');
        return {
          error: new ProtocolError(
            'timeout',
            `The viewer did not answer ${name} within ${options.timeoutMs} ms${policy === 'confirm' ? ' (including the time the person had to approve it)' : ''}.`,
          ),
        };
      },
      onAbort: () => {
        this.cancelOnViewer(id, 'The AI client cancelled the request.');
        return new ProtocolError('cancelled', `${name} was cancelled by the MCP client.`);
      },
    });
    this.callNames.set(id, name);
    control.send(encodeBridgeMessage(message));
    try {
      const raw = await answer;
      const parsed = parseToolResult(name, raw);
      if (!parsed.ok) throw new ProtocolError('system_error', parsed.error);
      return parsed.value;
    } finally {
      this.callNames.delete(id);
    }
  }

  /**
   * Asks the person at the control viewer to approve a mode raise. Resolves true/false (false
   * also when the deadline passes); rejects with viewer_unavailable when no viewer can ask.
   */
  requestModeApproval(
    request: { from: Mode; to: Mode; metadata: Record<string, unknown> | undefined },
    options: CallOptions,
  ): Promise<boolean> {
    const control = this.control;
    if (control === undefined) {
      return Promise.reject(new ProtocolError('viewer_unavailable', this.noViewerGuidance()));
    }
    const id = this.nextId('approval');
    const answer = this.approvals.wait(id, {
      viewerId: control.id,
      timeoutMs: options.timeoutMs,
      signal: options.signal,
      onTimeout: () => ({ value: false }),
    });
    const message: BridgeToViewer = {
      type: 'approval_request',
      request_id: id,
      from_mode: request.from,
      to_mode: request.to,
      ...(request.metadata === undefined ? {} : { metadata: request.metadata }),
      deadline_ms: options.timeoutMs,
    };
    control.send(encodeBridgeMessage(message));
    return answer;
  }

  /** The person pressed Stop (or the bridge stops everything): deny all, go passive. */
  stop(reason = 'Stopped by the person.'): void {
    const stopped = (): ProtocolError =>
      new ProtocolError(
        'cancelled',
        `Stopped by the person: they pressed Stop in the viewer, which denies every pending call and sets the mode to passive. Wait for them before acting again.`,
      );
    for (const id of this.calls.rejectAll(stopped)) this.callNames.delete(id);
    this.approvals.rejectAll(stopped);
    this.broadcast({ type: 'stop', reason });
    this.options.mode.set('passive', undefined, 'stop');
    for (const listener of this.listeners) listener.stop?.();
  }

  /** Routes one parsed message from `viewerId`. Returns an error text to send back, if any. */
  handle(viewerId: string, message: ViewerToBridge): string | undefined {
    const role = this.roleOf(viewerId);
    if (role === undefined) return undefined;
    switch (message.type) {
      case 'tool_result':
      case 'tool_error':
        return this.settleCall(viewerId, message);
      case 'approval':
        if (this.approvals.viewerOf(message.request_id) !== viewerId) {
          return `approval for unknown or expired request ${message.request_id}`;
        }
        this.approvals.resolve(message.request_id, message.approved);
        return undefined;
      case 'overlay_created':
      case 'overlay_removed':
      case 'clear_overlays':
      case 'request_sync':
      case 'sync_state':
        return this.overlays.handle(viewerId, role === 'control', message);
      case 'stop_pressed':
        this.options.logger.warn({ viewerId }, 'Stop pressed');
        this.stop();
        return undefined;
      case 'mode_set': {
        // The person may set any mode, raise or not: they are the one who approves raises. A
        // headless viewer has no person behind it, so it may only lower the mode.
        const peer = this.peer(viewerId);
        if (peer?.headless === true && isModeRaise(this.options.mode.mode, message.mode)) {
          return `mode_set ignored: a headless viewer cannot raise the mode from ${this.options.mode.mode} to ${message.mode}; only a person can`;
        }
        this.options.mode.set(message.mode, message.metadata, 'person');
        return undefined;
      }
      case 'event':
        // Defence in depth: a viewer that has not heard event_interest yet (or an older or
        // misbehaving one) may send what nobody asked for. Drop it here, unbuffered and
        // without an error back: the race after an unsubscribe is normal, not a fault.
        if (!this.interest.has(message.event.type)) return undefined;
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

  private settleCall(
    viewerId: string,
    message: Extract<ViewerToBridge, { type: 'tool_result' | 'tool_error' }>,
  ): string | undefined {
    if (this.calls.viewerOf(message.id) !== viewerId) {
      // Late answers after a timeout or Stop land here; the call was already failed.
      return `${message.type} for unknown or finished call ${message.id}`;
    }
    if (message.type === 'tool_result') {
      this.calls.resolve(message.id, message.result);
    } else {
      this.calls.reject(
        message.id,
        new ViewerReportedError(message.kind, message.message, message.retry_after_ms),
      );
    }
    return undefined;
  }

  /**
   * A mode change applies to calls still waiting at the viewer too: any the new mode denies is
   * failed and withdrawn at once, so a confirmation dialog approved after the person lowered
   * the mode cannot act.
   */
  private revokeDenied(snapshot: ModeSnapshot): void {
    for (const [id, name] of [...this.callNames]) {
      if (decidePolicy(snapshot.mode, snapshot.metadata, name) !== 'deny') continue;
      this.cancelOnViewer(
        id,
        `The mode changed to ${snapshot.mode}, which does not allow ${name}.`,
      );
      this.calls.reject(
        id,
        new ProtocolError(
          'permission_denied',
          `${name} was withdrawn before it ran: the mode changed to ${snapshot.mode}, which does not allow it. The person can change the mode in the viewer.`,
        ),
      );
      this.callNames.delete(id);
    }
  }

  private cancelOnViewer(id: string, reason: string): void {
    const viewerId = this.calls.viewerOf(id);
    if (viewerId === undefined) return;
    this.peer(viewerId)?.send(encodeBridgeMessage({ type: 'tool_cancel', id, reason }));
  }

  private sendHello(peer: ViewerPeer, role: ViewerRole): void {
    peer.send(
      encodeBridgeMessage({
        type: 'hello',
        protocol_version: PROTOCOL_VERSION,
        viewer_id: peer.id,
        mode: this.options.mode.mode,
        role,
      }),
    );
    // hello carries the mode but not a custom policy; send it so the viewer can show it.
    const snapshot = this.options.mode.snapshot;
    if (snapshot.mode === 'custom') peer.send(encodeBridgeMessage(modeChanged(snapshot)));
    // A viewer forgets the interest on every hello and streams every type until told; tell it
    // at once (an empty list when nobody subscribed).
    peer.send(encodeBridgeMessage(this.interest.message()));
  }

  private peer(id: string): ViewerPeer | undefined {
    return this.viewers.find((v) => v.id === id);
  }

  private broadcast(message: BridgeToViewer): void {
    const text = encodeBridgeMessage(message);
    for (const v of this.viewers) v.send(text);
  }

  private nextId(prefix: string): string {
    this.counter += 1;
    return `${prefix}_${this.counter}_${randomBytes(4).toString('hex')}`;
  }
}

function modeChanged(snapshot: ModeSnapshot): BridgeToViewer {
  return snapshot.metadata === undefined
    ? { type: 'mode_changed', mode: snapshot.mode }
    : { type: 'mode_changed', mode: snapshot.mode, metadata: snapshot.metadata };
}
