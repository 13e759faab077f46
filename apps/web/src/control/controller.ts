// The viewer side of the control plane, framework-free: handles every bridge message (hello,
// tool calls, cancels, mode, approvals, Stop, the overlay store's sync), re-checks the mode
// policy for each call, asks the person when it says so, runs the tool, and answers with
// tool_result / tool_error. While the person has taken the desktop over, AI input is not asked
// about: it waits for the hand back (a question already open is withdrawn), and input allowed
// before or during the take-over is offered again at the hand back (runShown.ts). Synchronous tools are answered in the same task as the message
// arrived — the store is updated, the answer sent, and React renders afterwards. Keeping the
// overlay store in step with the other windows is overlaySync.ts.
import {
  APPROVAL_WINDOW_MS,
  PROTOCOL_VERSION,
  ProtocolError,
  intentOfArgs,
  typedToolCall,
  wantsConfirmation,
  type BridgeToViewer,
  type ErrorKind,
  type Mode,
  type TypedToolCall,
  type ViewerToBridge,
} from '@overlay-companion/protocol';
import type { StoreApi } from 'zustand/vanilla';
import type { Confirmations } from '../confirm/confirmations.js';
import type { ControlState } from '../store/control.js';
import type { OverlayState } from '../store/overlays.js';
import { confirmDetails } from '../confirm/previewDetails.js';
import type { AnyViewerResult, ToolEnv } from './dispatch.js';
import { gateToolCall } from './policyGate.js';
import type { StandingState } from '../store/standing.js';
import type { LayoutState } from '../store/layout.js';
import type { DesktopState } from '../store/desktopState.js';
import {
  GIVE_UP_MARGIN_MS,
  WITHDRAWN_AT_TAKE_OVER_MESSAGE,
  type PersonActivity,
  type TakeOverState,
  type Turn,
} from '../takeover/personActivity.js';
import type { HeldActions } from '../takeover/heldActions.js';
import { monitorsOrNone, runWithPerson, waitsForPerson } from './runShown.js';
import { AskEndedError, errorAnswer, invalidResult, toolError } from './answers.js';
import type { SettledReason } from '../confirm/confirmations.js';
import { aiActionSeen } from '../activity/aiActivity.js';
import { overlaySyncMessage, overlaysOnHello, type OverlaySyncDeps } from './overlaySync.js';
import { waitingElsewhere } from '../confirm/answerElsewhere.js';

/** Everything a call needs except its signal and whether the person confirmed it. */
export type SharedEnv = Omit<ToolEnv, 'signal' | 'confirmed'>;

export interface ControllerDeps {
  send: (message: ViewerToBridge) => boolean;
  /** Close the link for good (protocol version mismatch). */
  giveUp: (detail: string) => void;
  control: StoreApi<ControlState>;
  overlayStore: StoreApi<OverlayState>;
  confirmations: Confirmations;
  env: SharedEnv;
  /**
   * When the desktop is connected but its first frame (and so its size) has not arrived yet, a
   * promise that settles when it does, or after `timeoutMs`, or on abort; otherwise undefined.
   * Calls made in that gap wait for it instead of failing.
   */
  firstFrame?: (timeoutMs: number, signal: AbortSignal) => Promise<void> | undefined;
  /** The person's own use of the desktop: AI input waits its turn (none when absent). */
  person?: PersonActivity;
  /** The person's monitor layout and privacy masks, as the bridge sends them. */
  layout?: StoreApi<LayoutState>;
  /** Whether the person has taken the desktop over, in any of their windows. */
  takeOver?: StoreApi<TakeOverState>;
  /** Input that waited through a take-over asks Run / Discard here (none: it runs). */
  held?: HeldActions;
  /** The person's standing permissions (none when absent); Stop revokes them all. */
  standing?: StoreApi<StandingState>;
  /** desktop_state: the desktop's name, who is in charge of its AI and who watches. */
  desktopState?: StoreApi<DesktopState>;
  warn?: (message: string) => void;
}

/** How long a call made right after connecting waits for the desktop's first frame. */
const FIRST_FRAME_WAIT_MS = 10_000;

export class ViewerController {
  readonly #deps: ControllerDeps;
  readonly #overlaySync: OverlaySyncDeps;
  /** Calls being worked on, by id: aborting one stops its confirmation and input at once. */
  readonly #inflight = new Map<string, AbortController>();
  /** Stop was pressed while the link was down: the bridge has not heard it yet. */
  #stopOwed = false;

  constructor(deps: ControllerDeps) {
    this.#deps = deps;
    // Made once: a mirror handles one overlay message per AI change, thousands at a time.
    const { send, overlayStore, env } = deps;
    this.#overlaySync = { send, overlayStore, overlays: env.overlays };
  }

  get inflightCount(): number {
    return this.#inflight.size;
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
        this.#call(typedToolCall(message));
        return;
      case 'tool_cancel':
        this.#inflight.get(message.id)?.abort(new ProtocolError('cancelled', message.reason));
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
    for (const call of this.#inflight.values()) {
      call.abort(new ProtocolError('viewer_unavailable', why));
    }
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
    for (const call of this.#inflight.values()) {
      call.abort(new ProtocolError('cancelled', `Stopped: ${reason}`));
    }
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

  #call(call: TypedToolCall): void {
    const { control } = this.#deps;
    if (control.getState().role !== 'control') {
      this.#fail(
        call.id,
        'system_error',
        'This viewer window is a mirror; tool calls go to the control window.',
      );
      return;
    }
    const abort = new AbortController();
    this.#inflight.set(call.id, abort);
    const deadline = setTimeout(
      () =>
        abort.abort(
          new ProtocolError(
            'timeout',
            `${call.name} ran past its ${call.deadline_ms} ms deadline.`,
          ),
        ),
      call.deadline_ms,
    );
    const done = () => {
      clearTimeout(deadline);
      this.#inflight.delete(call.id);
    };
    const giveUpAt = Date.now() + call.deadline_ms - GIVE_UP_MARGIN_MS;
    try {
      const outcome = this.#gateAndRun(call, abort.signal, giveUpAt);
      if (outcome instanceof Promise) {
        outcome.then(
          (result) => {
            done();
            this.#answer(call, abort.signal, result);
          },
          (err: unknown) => {
            done();
            this.#answerError(call.id, abort.signal, err);
          },
        );
      } else {
        done();
        this.#answer(call, abort.signal, outcome);
      }
    } catch (err) {
      done();
      this.#answerError(call.id, abort.signal, err);
    }
  }

  #gateAndRun(
    call: TypedToolCall,
    signal: AbortSignal,
    giveUpAt: number,
  ): AnyViewerResult | Promise<AnyViewerResult> {
    const proceed = (before: Turn | undefined) => {
      // Decided when it runs: a call that waited for the first frame or a hand back is judged by
      // the mode the person has now, not the one it arrived under.
      const decision = this.#gate(call);
      if (decision.action === 'deny')
        throw new ProtocolError('permission_denied', decision.message);
      return decision.action === 'run'
        ? this.#run(call, signal, false, giveUpAt, before)
        : this.#confirmThenRun(call, signal, giveUpAt, before);
    };
    // Input while the person has the desktop is not asked about: it waits for the hand back.
    const afterHandBack = () => {
      const person = this.#deps.person;
      if (person === undefined || !waitsForPerson(call.name) || !person.takenOver)
        return proceed(undefined);
      return person.waitForHandBack(signal, giveUpAt).then(proceed);
    };
    // A call the mode denies fails at once, without waiting for the desktop.
    const early = this.#gate(call);
    if (early.action === 'deny') throw new ProtocolError('permission_denied', early.message);
    // Only in the gap between the handshake and the first frame; overlays stay synchronous.
    const firstFrame = this.#deps.firstFrame?.(
      Math.min(call.deadline_ms, FIRST_FRAME_WAIT_MS),
      signal,
    );
    return firstFrame === undefined ? afterHandBack() : firstFrame.then(afterHandBack);
  }

  #gate(call: TypedToolCall) {
    const s = this.#deps.control.getState();
    return gateToolCall({
      mode: s.mode,
      metadata: s.metadata,
      permissions: s.permissions,
      name: call.name,
      args: call.args,
      bridgePolicy: call.policy,
      headless: s.headless,
      clientKey: call.client?.key,
      standingId: call.standing_id,
      standing: this.#deps.standing?.getState().permissions ?? [],
      now: Date.now(),
    });
  }

  async #confirmThenRun(
    call: TypedToolCall,
    signal: AbortSignal,
    giveUpAt: number,
    before: Turn | undefined,
  ): Promise<AnyViewerResult> {
    const timeoutMs = Math.min(APPROVAL_WINDOW_MS, call.deadline_ms);
    const details = confirmDetails(call, monitorsOrNone(this.#deps.env.monitors));
    const grantable =
      call.client !== undefined && !wantsConfirmation(call.args)
        ? { tool: call.name, client: call.client, callId: call.id }
        : undefined;
    const asking = this.#withdrawnAtTakeOver(call, signal);
    let how: SettledReason;
    try {
      how = await this.#deps.confirmations.askHow(details, {
        timeoutMs,
        signal: asking.signal,
        ...(grantable === undefined ? {} : { grantable }),
        intent: intentOfArgs(call.args),
      });
    } finally {
      asking.release();
    }
    if (asking.signal.aborted) {
      const why: unknown = asking.signal.reason;
      throw why instanceof ProtocolError
        ? new AskEndedError(why.kind, why.message, 'withdrawn')
        : new AskEndedError('cancelled', 'Cancelled.', 'withdrawn');
    }
    if (how !== 'approved') throw notApproved(call.name, how, timeoutMs);
    // Stop or a mode change while the question was open wins over the approval.
    const again = this.#gate(call);
    if (again.action === 'deny') throw new ProtocolError('permission_denied', again.message);
    // Approved now, after any take-over: only a new one makes the person confirm it again.
    return this.#run(call, signal, true, giveUpAt, {
      waitedMs: before?.waitedMs ?? 0,
      tookOver: false,
    });
  }

  /**
   * The signal a question about desktop input is asked under: `signal`, and also aborted when
   * the person takes the desktop over (the panel closes; the AI is told why).
   */
  #withdrawnAtTakeOver(
    call: TypedToolCall,
    signal: AbortSignal,
  ): { signal: AbortSignal; release: () => void } {
    const takeOver = this.#deps.takeOver;
    if (takeOver === undefined || !waitsForPerson(call.name))
      return { signal, release: () => undefined };
    const asking = new AbortController();
    const onAbort = () => asking.abort(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    const unsubscribe = takeOver.subscribe((s) => {
      if (s.takenOver) asking.abort(new ProtocolError('cancelled', WITHDRAWN_AT_TAKE_OVER_MESSAGE));
    });
    if (signal.aborted) onAbort();
    else if (takeOver.getState().takenOver)
      asking.abort(new ProtocolError('cancelled', WITHDRAWN_AT_TAKE_OVER_MESSAGE));
    return {
      signal: asking.signal,
      release: () => {
        signal.removeEventListener('abort', onAbort);
        unsubscribe();
      },
    };
  }

  #run(
    call: TypedToolCall,
    signal: AbortSignal,
    confirmed: boolean,
    giveUpAt: number,
    before?: Turn,
  ): AnyViewerResult | Promise<AnyViewerResult> {
    const receipt =
      call.receipt === undefined
        ? undefined
        : {
            token: call.receipt,
            sent: (result: AnyViewerResult) => this.#inputSent(call, signal, result),
          };
    return runWithPerson(call, {
      env: { ...this.#deps.env, signal, confirmed, receipt },
      person: this.#deps.person,
      held: this.#deps.held,
      giveUpAt,
      tookOver: before?.tookOver ?? false,
      waitedMs: before?.waitedMs ?? 0,
      clientName: call.client?.name,
      recheck: () => {
        const decision = this.#gate(call);
        if (decision.action === 'deny')
          throw new ProtocolError('permission_denied', decision.message);
      },
    });
  }

  #answer(call: TypedToolCall, signal: AbortSignal, result: AnyViewerResult): void {
    // Cancelled, timed out or stopped: the bridge already failed the call; a late answer would
    // only earn an error back.
    if (signal.aborted) return;
    // Check our own answer against the schema the bridge will use.
    const invalid = invalidResult(call, result);
    if (invalid !== undefined) {
      this.#fail(call.id, 'system_error', invalid);
      return;
    }
    this.#deps.send({ type: 'tool_result', id: call.id, result });
  }

  /** The call's input left behind its receipt token: what it answers once delivered. */
  #inputSent(call: TypedToolCall, signal: AbortSignal, result: AnyViewerResult): void {
    // An answer the bridge would refuse goes as the final one only (#answer reports it).
    if (signal.aborted || invalidResult(call, result) !== undefined) return;
    this.#deps.send({ type: 'input_sent', id: call.id, result });
  }

  #answerError(id: string, signal: AbortSignal, err: unknown): void {
    if (!signal.aborted) this.#deps.send(errorAnswer(id, err));
  }

  #fail(id: string, kind: ErrorKind, message: string): void {
    this.#deps.send(toolError(id, kind, message));
  }
}

/** Why a call the person was asked about did not run, as the AI and the audit hear it. */
function notApproved(tool: string, how: SettledReason, timeoutMs: number): AskEndedError {
  switch (how) {
    case 'timeout':
      return new AskEndedError(
        'permission_denied',
        `The person did not answer within ${Math.round(timeoutMs / 1000)} s, so ${tool} did not run. Ask again only if it still matters.`,
        'timeout',
      );
    case 'stopped':
      return new AskEndedError(
        'cancelled',
        `The person pressed Stop while ${tool} waited for their answer; it did not run. Wait for them before acting again.`,
        'stopped',
      );
    case 'withdrawn':
      return new AskEndedError('cancelled', `${tool} was withdrawn before an answer.`, 'withdrawn');
    default:
      return new AskEndedError(
        'permission_denied',
        `The person denied ${tool} in the viewer.`,
        'denied',
      );
  }
}
