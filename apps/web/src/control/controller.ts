// The viewer side of the control plane, framework-free: handles every bridge message (hello,
// tool calls, cancels, mode, approvals, Stop, the overlay store's sync) and the person's Stop and
// mode choice. Running the AI's calls — the mode policy re-checked for each, the person asked
// when it says so, input waiting through a take-over, the answer — is toolCalls.ts; keeping the
// overlay store in step with the other windows is overlaySync.ts.
import {
  APPROVAL_WINDOW_MS,
  PROTOCOL_VERSION,
  ProtocolError,
  typedToolCall,
  type BridgeToViewer,
  type Mode,
} from '@overlay-companion/protocol';
import type { StoreApi } from 'zustand/vanilla';
import type { OverlayState } from '../store/overlays.js';
import type { LayoutState } from '../store/layout.js';
import type { DesktopState } from '../store/desktopState.js';
import { aiActionSeen } from '../activity/aiActivity.js';
import {
  overlaySyncMessage,
  overlaysOnHello,
  type Burst,
  type OverlaySyncDeps,
} from './overlaySync.js';
import { waitingElsewhere } from '../confirm/answerElsewhere.js';
import { ToolCalls, type ToolCallDeps } from './toolCalls.js';

export interface ControllerDeps extends ToolCallDeps {
  /** Close the link for good (protocol version mismatch). */
  giveUp: (detail: string) => void;
  overlayStore: StoreApi<OverlayState>;
  /** As a mirror, apply a burst of relayed overlay changes at once (overlaySync.ts Burst). */
  overlayBurst?: Burst;
  /** The person's monitor layout and privacy masks, as the bridge sends them. */
  layout?: StoreApi<LayoutState>;
  /** desktop_state: the desktop's name, who is in charge of its AI and who watches. */
  desktopState?: StoreApi<DesktopState>;
  warn?: (message: string) => void;
}

export class ViewerController {
  readonly #deps: ControllerDeps;
  readonly #overlaySync: OverlaySyncDeps;
  readonly #calls: ToolCalls;
  /** Stop was pressed while the link was down: the bridge has not heard it yet. */
  #stopOwed = false;

  constructor(deps: ControllerDeps) {
    this.#deps = deps;
    // Made once: a mirror handles one overlay message per AI change, thousands at a time.
    const { send, overlayStore, env, overlayBurst } = deps;
    this.#overlaySync = { send, overlayStore, overlays: env.overlays, burst: overlayBurst };
    this.#calls = new ToolCalls(deps);
  }

  get inflightCount(): number {
    return this.#calls.count;
  }

  /** The link (re)opened: nothing to do until hello says who we are. */
  linkOpened(): void {
    this.#deps.control.getState().linkChanged('open');
  }

  handle(message: BridgeToViewer): void {
    const { control } = this.#deps;
    switch (message.type) {
      case 'hello': {
        if (message.protocol_version !== PROTOCOL_VERSION) {
          this.#deps.giveUp(
            `The bridge speaks control protocol ${message.protocol_version}, this viewer ${PROTOCOL_VERSION}. Reload the page to get the viewer that matches the bridge.`,
          );
          return;
        }
        const wasControl = control.getState().role === 'control';
        // A Stop the bridge never heard wins over the mode it remembers: stay passive and tell
        // it now (it answers with mode_changed passive).
        const mode = this.#stopOwed ? 'passive' : message.mode;
        control.getState().helloReceived({
          viewerId: message.viewer_id,
          role: message.role,
          mode,
          headless: message.headless,
          permissions: message.permissions,
        });
        // Another window of the person became the control window: the bridge failed what this
        // one held, so drop the questions and the work here too (nobody waits for them now).
        if (wasControl && message.role !== 'control')
          this.#dropHeldWork('The person made another window the control window.');
        if (this.#stopOwed && this.#deps.send({ type: 'stop_pressed' })) this.#stopOwed = false;
        // Taken over while the link was down (or the bridge restarted): the bridge hears it now.
        if (this.#deps.takeOver?.getState().takenOver)
          this.#deps.send({ type: 'take_over', on: true });
        overlaysOnHello(this.#overlaySync, message.role, wasControl);
        return;
      }
      case 'tool_call':
        this.#calls.start(typedToolCall(message));
        return;
      case 'tool_cancel':
        this.#calls.cancel(message.id, new ProtocolError('cancelled', message.reason));
        return;
      case 'mode_changed':
        control.getState().modeChanged(message.mode, message.metadata);
        return;
      case 'approval_request':
        void this.#approveMode(message);
        return;
      case 'stop':
        this.stopLocally(message.reason);
        return;
      case 'request_sync':
      case 'sync_state':
      case 'overlay_created':
      case 'overlay_removed':
      case 'clear_overlays':
      case 'overlay_put':
        overlaySyncMessage(this.#overlaySync, control.getState().role, message);
        return;
      case 'event_interest':
        control.getState().eventInterestChanged(message.events);
        return;
      case 'permissions_changed':
        control.getState().permissionsChanged(message.permissions);
        return;
      case 'ai_clients':
        control.getState().aiClientsChanged(message.clients);
        return;
      case 'approvals_waiting': {
        if (control.getState().role === 'control') return; // our own queue is the truth
        const before = control.getState().approvalsElsewhere;
        control
          .getState()
          .approvalsElsewhereChanged(waitingElsewhere(before, message.requests, Date.now()));
        return;
      }
      case 'approval_answer':
        // The person answered in another of their windows (the bridge checked it was theirs):
        // settle it as if answered in this panel. Unknown or finished ids change nothing.
        if (control.getState().role === 'control')
          this.#deps.confirmations.answer(message.request_id, message.approved);
        return;
      case 'take_over':
        // The person took over (or handed back) in some window: AI input here follows.
        this.#deps.takeOver?.getState().takenOverChanged(message.on, 'bridge');
        return;
      case 'ai_action':
        // The control window ran it; this one draws it where it shows that part of the desktop.
        if (control.getState().role !== 'control') aiActionSeen(message.action);
        return;
      case 'layout_changed':
        this.#deps.layout?.getState().layoutChanged(message.layout);
        return;
      case 'desktop_state':
        this.#deps.desktopState?.getState().desktopStateReceived(message);
        return;
      case 'standing_permissions':
        this.#deps.standing?.getState().received(message, Date.now());
        return;
      case 'error':
        (this.#deps.warn ?? console.warn)(
          `The bridge did not accept a message: ${message.message}`,
        );
        return;
      default: {
        const unknown: never = message;
        void unknown;
      }
    }
  }

  /**
   * The link to the bridge dropped: the bridge failed everything it had sent us, so drop the
   * work and the questions (an approval after this would reach nobody).
   */
  linkLost(): void {
    this.#dropHeldWork('The link to the bridge dropped.');
  }

  #dropHeldWork(why: string): void {
    this.#deps.confirmations.denyAll();
    this.#calls.abortAll(new ProtocolError('viewer_unavailable', why));
  }

  /** The person pressed Stop in this window. */
  pressStop(): void {
    if (!this.#deps.send({ type: 'stop_pressed' })) this.#stopOwed = true;
    this.stopLocally('You pressed Stop.');
  }

  /**
   * Stop here, at once, whatever the link does: deny every question, abort every call (input
   * sequences release what they hold), and behave as passive until the bridge says otherwise.
   */
  stopLocally(reason: string): void {
    this.#deps.confirmations.denyAll();
    this.#deps.standing?.getState().allRevoked();
    this.#calls.abortAll(new ProtocolError('cancelled', `Stopped: ${reason}`));
    this.#deps.control.getState().modeChanged('passive', undefined);
  }

  /** The person picked a mode in the chrome; the bridge applies and broadcasts it. */
  chooseMode(mode: Mode, metadata?: Record<string, unknown>): boolean {
    return this.#deps.send(
      metadata === undefined ? { type: 'mode_set', mode } : { type: 'mode_set', mode, metadata },
    );
  }

  async #approveMode(
    request: Extract<BridgeToViewer, { type: 'approval_request' }>,
  ): Promise<void> {
    const approved = await this.#deps.confirmations.ask(
      {
        kind: 'mode',
        from: request.from_mode,
        to: request.to_mode,
        metadata: request.metadata,
        requestedBy: request.requested_by,
      },
      { timeoutMs: Math.min(APPROVAL_WINDOW_MS, request.deadline_ms) },
    );
    this.#deps.send({ type: 'approval', request_id: request.request_id, approved });
  }
}
