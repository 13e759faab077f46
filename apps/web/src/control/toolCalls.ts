// The AI's tool calls in the control window, one at a time from arrival to answer: each under its
// deadline and its own abort (a cancel, Stop or a lost link ends it at once), re-checked against
// the mode policy when it runs, waiting for the desktop's first frame or the person's hand back
// when it must, asking the person when the policy says so (askPerson.ts), run (runShown.ts) and
// answered with tool_result / tool_error — synchronous tools in the same task as they arrived.
import { ProtocolError, type ErrorKind, type TypedToolCall } from '@overlay-companion/protocol';
import type { StoreApi } from 'zustand/vanilla';
import type { ControlState } from '../store/control.js';
import type { StandingState } from '../store/standing.js';
import {
  GIVE_UP_MARGIN_MS,
  type PersonActivity,
  type TakeOverState,
  type Turn,
} from '../takeover/personActivity.js';
import type { HeldActions } from '../takeover/heldActions.js';
import type { Confirmations } from '../confirm/confirmations.js';
import { errorAnswer, invalidResult, toolError } from './answers.js';
import { askPerson } from './askPerson.js';
import type { AnyViewerResult, ToolEnv } from './dispatch.js';
import { gateToolCall } from './policyGate.js';
import { runWithPerson, waitsForPerson } from './runShown.js';
import type { ViewerToBridge } from '@overlay-companion/protocol';

/** Everything a call needs except its signal and whether the person confirmed it. */
export type SharedEnv = Omit<ToolEnv, 'signal' | 'confirmed'>;

export interface ToolCallDeps {
  send: (message: ViewerToBridge) => boolean;
  control: StoreApi<ControlState>;
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
  /** Whether the person has taken the desktop over, in any of their windows. */
  takeOver?: StoreApi<TakeOverState>;
  /** Input that waited through a take-over asks Run / Discard here (none: it runs). */
  held?: HeldActions;
  /** The person's standing permissions (none when absent); Stop revokes them all. */
  standing?: StoreApi<StandingState>;
}

/** How long a call made right after connecting waits for the desktop's first frame. */
const FIRST_FRAME_WAIT_MS = 10_000;

export class ToolCalls {
  readonly #deps: ToolCallDeps;
  /** Calls being worked on, by id: aborting one stops its confirmation and input at once. */
  readonly #inflight = new Map<string, AbortController>();

  constructor(deps: ToolCallDeps) {
    this.#deps = deps;
  }

  get count(): number {
    return this.#inflight.size;
  }

  /** End call `id` now (the bridge cancelled it). */
  cancel(id: string, why: ProtocolError): void {
    this.#inflight.get(id)?.abort(why);
  }

  /** End every call being worked on now. */
  abortAll(why: ProtocolError): void {
    for (const call of this.#inflight.values()) call.abort(why);
  }

  /** A tool_call arrived. */
  start(call: TypedToolCall): void {
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
    const { confirmations, env, takeOver } = this.#deps;
    await askPerson(
      { confirmations, monitors: env.monitors, ...(takeOver === undefined ? {} : { takeOver }) },
      call,
      signal,
    );
    // Stop or a mode change while the question was open wins over the approval.
    const again = this.#gate(call);
    if (again.action === 'deny') throw new ProtocolError('permission_denied', again.message);
    // Approved now, after any take-over: only a new one makes the person confirm it again.
    return this.#run(call, signal, true, giveUpAt, {
      waitedMs: before?.waitedMs ?? 0,
      tookOver: false,
    });
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
