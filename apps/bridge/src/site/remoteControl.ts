// Tool calls (and the AI's mode raises) whose desktop's control window (the person's window that
// runs the AI's calls) is on another bridge of the site — which one, the leases say
// (controlLeases.ts). A call for a desktop with no control window here is forwarded to the
// holder over NATS request/reply with its deadline; the MCP client's cancellation follows it
// (ForwardedCancel), and the holder's answer — result or error of the same kind, viewer-reported
// or not — is returned as if the call had been local. The holder's side (running what was
// forwarded there, and answering) is forwardedCallsHere.ts's.
// Fails closed: no lease, or a holder that does not answer, is the usual viewer_unavailable
// error, and nothing reaches the desktop; while this bridge has lost the site's bus, at once
// (busAwayError: no wait for a lease or a holder that cannot come).
// While a forwarded call waits, the holder is pinged every HOLDER_PROBE_MS (sealed, both ways:
// bridgePing.ts): a bridge that died (NATS says nobody listens there any more, or no sealed
// answer came for HOLDER_SILENT_MS) fails the call at once with words saying so, instead of after
// its whole budget (up to 15 minutes with an approval).
import {
  ProtocolError,
  type Mode,
  parseToolResult,
  type ToolArgs,
  type ToolViewerResult,
  type ViewerToolName,
} from '@overlay-companion/protocol';
import type { Logger } from 'pino';
import { errorMessage } from '../errors.js';
import type { DesktopPlane, DesktopPlanes } from '../mcp/desktopPlanes.js';
import type { RemoteControlRoute, RemoteHolder, RemoteModeAnswer } from '../mcp/relayCall.js';
import { ViewerReportedError, type CallOptions } from '../relay/callRelay.js';
import { busAwayError } from '../relay/noViewer.js';
import { pingBridge } from './bridgePing.js';
import { ControlLeases } from './controlLeases.js';
import { ForwardedCallsHere } from './forwardedCallsHere.js';
import {
  ForwardedAnswer,
  type ForwardedCall,
  type ForwardedCancel,
  type ForwardedModeApproval,
} from './messages.js';
import { BUS_AWAY_RETRY_MS, type SiteBus } from './siteBus.js';
import { NoAnswer } from './siteRequest.js';

/**
 * How long a call finding no control window anywhere waits for one's lease before it fails
 * (within every tool's budget): the time a window's bridge takes to write it and the others to
 * see it, with room for a loaded machine.
 */
const LEASE_WAIT_MS = 1_000;
/** How long a forwarded call may take beyond its own budget (the trip there and back). */
const FORWARD_MARGIN_MS = 2_000;
/** How often the holder of a waiting forwarded call is asked whether it is still there. */
const HOLDER_PROBE_MS = 250;
/**
 * A holder none of whose pings got a sealed answer for this long is taken as gone (NATS says
 * "nobody there" at once when nobody listens; this bounds the case where someone else does).
 */
const HOLDER_SILENT_MS = 3_000;

/** The holder of a forwarded call is gone (NATS has nobody listening at its subjects). */
class HolderGone extends Error {}

export interface RemoteControlOptions {
  bus: SiteBus;
  planes: DesktopPlanes;
  logger: Logger;
  /** Another bridge took or gave up a desktop's control window (ControlLeasesOptions). */
  holderChanged?: ((desktopId: string) => void) | undefined;
}

export class RemoteControl implements RemoteControlRoute {
  /** The calls other bridges forward here, when this bridge holds the control window. */
  private readonly here: ForwardedCallsHere;
  private readonly leases: ControlLeases;
  /** Calls forwarded from here so far: each one's id (unique with this bridge's id, sealed). */
  private forwarded = 0;

  constructor(private readonly options: RemoteControlOptions) {
    this.here = new ForwardedCallsHere(options);
    this.leases = new ControlLeases(options);
  }

  /**
   * The bridge holding the desktop's control window, when it is another one. With no control
   * window known anywhere, waits up to LEASE_WAIT_MS (less when `signal` aborts, and no longer
   * once one is here) for a lease to be told: a window that opened on another bridge a moment
   * ago is control there before its lease is written and seen here.
   */
  async holder(desktopId: string, signal?: AbortSignal): Promise<RemoteHolder | undefined> {
    this.refuseWhileAway();
    const now = await this.leases.holder(desktopId);
    if (now !== undefined || signal?.aborted === true) return now;
    const plane = await this.options.planes.ifLoaded(desktopId);
    const here = (): boolean => plane?.hub.control !== undefined;
    if (here()) return undefined;
    this.options.logger.debug({ desktopId }, 'site: no control window known: waiting for a lease');
    return this.leases.told(desktopId, LEASE_WAIT_MS, here, signal);
  }

  /**
   * While this bridge has lost the site's bus, no other bridge's window can be reached (nor can
   * whether one is open be known): refused at once, before any wait, and nothing runs.
   */
  private refuseWhileAway(): void {
    const since = this.options.bus.awaySince();
    if (since !== undefined) throw busAwayError(Date.now() - since, BUS_AWAY_RETRY_MS);
  }

  /** Whether another bridge holds the desktop's control window (its lease, as last told). */
  controlElsewhere(desktopId: string): boolean {
    return this.leases.heldElsewhere(desktopId);
  }

  /** Runs the call at `holder`'s control window and returns its answer as a local call would. */
  async call<N extends ViewerToolName>(
    holder: RemoteHolder,
    plane: DesktopPlane,
    name: N,
    args: ToolArgs<N>,
    policy: 'allow' | 'confirm',
    options: CallOptions,
  ): Promise<ToolViewerResult<N>> {
    if (options.signal?.aborted === true)
      throw new ProtocolError('cancelled', `${name} was cancelled by the MCP client.`);
    const { bus } = this.options;
    const callId = this.nextCallId();
    const request: ForwardedCall = {
      type: 'call',
      from: bus.bridgeId,
      callId,
      desktopId: plane.desktopId,
      tool: name,
      args,
      policy,
      timeoutMs: options.timeoutMs,
      ...(options.client === undefined ? {} : { client: options.client }),
      ...(options.standingId === undefined ? {} : { standingId: options.standingId }),
    };
    const answer = await this.ask(holder, plane, 'call', request, name, options);
    if (!('result' in answer)) throw new ProtocolError('system_error', 'Not a call answer.');
    const result = parseToolResult(name, answer.result);
    if (!result.ok) throw new ProtocolError('system_error', result.error);
    return result.value;
  }

  /** Asks the person at `holder`'s control window to approve the AI's mode raise. */
  async approveMode(
    holder: RemoteHolder,
    plane: DesktopPlane,
    request: { from: Mode; to: Mode; metadata: Record<string, unknown> | undefined },
    options: CallOptions,
  ): Promise<RemoteModeAnswer> {
    const { bus } = this.options;
    const message: ForwardedModeApproval = {
      type: 'mode_approval',
      from: bus.bridgeId,
      callId: this.nextCallId(),
      desktopId: plane.desktopId,
      fromMode: request.from,
      toMode: request.to,
      ...(request.metadata === undefined ? {} : { metadata: request.metadata }),
      timeoutMs: options.timeoutMs,
    };
    const answer = await this.ask(holder, plane, 'approve', message, 'set_mode', options);
    if (!('approved' in answer)) throw new ProtocolError('system_error', 'Not an approval.');
    return { approved: answer.approved, answered: answer.answered };
  }

  /**
   * Sends one forwarded request to `holder` and waits for its answer (the MCP client's cancel
   * follows it); a failure comes back as the error the holder raised, of the same kind.
   */
  private async ask(
    holder: RemoteHolder,
    plane: DesktopPlane,
    what: 'call' | 'approve',
    request: ForwardedCall | ForwardedModeApproval,
    name: string,
    options: CallOptions,
  ): Promise<Extract<ForwardedAnswer, { ok: true }>> {
    this.refuseWhileAway();
    const { bus } = this.options;
    const subject = bus.bridgeSubject(holder.bridge, what);
    const cancel = (): void => {
      const message: ForwardedCancel = {
        type: 'cancel',
        from: bus.bridgeId,
        callId: request.callId,
      };
      const cancelSubject = bus.bridgeSubject(holder.bridge, 'cancel');
      bus.nc.publish(cancelSubject, bus.seal(cancelSubject, message));
    };
    options.signal?.addEventListener('abort', cancel, { once: true });
    // Only an answer sealed for this request ends the wait (siteBus.ts request()), or the holder
    // found gone, or the budget spent.
    const asked = bus.request(
      subject,
      request,
      ForwardedAnswer,
      options.timeoutMs + FORWARD_MARGIN_MS,
    );
    const watch = this.watchHolder(holder, () => asked.fail(new HolderGone()));
    let answer: ForwardedAnswer;
    try {
      answer = await asked.answer;
    } catch (err) {
      this.leases.forget(plane.desktopId);
      throw this.unreachable(err, plane, name, options.timeoutMs);
    } finally {
      watch.stop();
      options.signal?.removeEventListener('abort', cancel);
    }
    if (!answer.ok) {
      const { kind, message, retryAfterMs, viewer, asked } = answer.error;
      const error = viewer
        ? new ViewerReportedError(kind, message, retryAfterMs)
        : new ProtocolError(kind, message, retryAfterMs);
      if (error instanceof ViewerReportedError) error.asked = asked;
      throw error;
    }
    return answer;
  }

  /**
   * Pings `holder` every HOLDER_PROBE_MS while a forwarded call waits there: `gone` is called
   * once NATS has nobody listening at its subjects (its bridge died or left), or no ping got a
   * sealed answer for HOLDER_SILENT_MS (someone without the site's key listens there in its
   * place, or the bridge hangs). A plain timer, stopped when the call settles: most calls end
   * before the first ping and cost one setTimeout.
   */
  private watchHolder(holder: RemoteHolder, gone: () => void): { stop(): void } {
    const { bus, logger } = this.options;
    let timer: NodeJS.Timeout | undefined;
    let stopped = false;
    let heardAt = Date.now();
    const next = (): void => {
      timer = setTimeout(() => void probe(), HOLDER_PROBE_MS);
      timer.unref();
    };
    const probe = async (): Promise<void> => {
      const liveness = await pingBridge(bus, holder.bridge, HOLDER_PROBE_MS * 4, logger);
      if (stopped) return;
      if (liveness === 'alive') heardAt = Date.now();
      else if (liveness === 'gone' || Date.now() - heardAt >= HOLDER_SILENT_MS) {
        gone();
        return;
      }
      next();
    };
    next();
    return {
      stop: () => {
        stopped = true;
        clearTimeout(timer);
      },
    };
  }

  private nextCallId(): string {
    this.forwarded += 1;
    return this.forwarded.toString(36);
  }

  async close(): Promise<void> {
    this.here.close();
    await this.leases.close();
  }

  /** Why a forwarded call got no answer, as the local relay would say it. */
  private unreachable(err: unknown, plane: DesktopPlane, name: string, timeoutMs: number): Error {
    if (err instanceof HolderGone) {
      this.options.logger.warn(
        { desktopId: plane.desktopId },
        'site: a forwarded call lost its holder',
      );
      return new ProtocolError(
        'viewer_unavailable',
        `The bridge that holds the desktop's control window went away while ${name} waited there, so it may or may not have happened. Take a screenshot to check before retrying: the person's window reconnects to another bridge by itself.`,
      );
    }
    if (err instanceof NoAnswer && err.why === 'timeout')
      return new ProtocolError(
        'timeout',
        `The viewer did not answer ${name} within ${timeoutMs} ms (through another bridge of the site); take a screenshot to check before retrying.`,
      );
    const noViewer = plane.hub.noViewerError();
    this.options.logger.warn({ err: errorMessage(err) }, 'site: a forwarded call found no holder');
    return new ProtocolError(
      'viewer_unavailable',
      `The bridge that held the desktop's control window is not answering, so nothing was sent to the desktop. ${noViewer.message}`,
      noViewer.retryAfterMs,
    );
  }
}
