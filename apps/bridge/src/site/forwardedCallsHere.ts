// The forwarded calls this bridge runs as the holder of a desktop's control window: tool calls
// and the AI's mode raises that another bridge of the site forwarded here (remoteControl.ts is
// that side), their cancellations, and the answers, sealed for the asking bridge's reply subject.
// This bridge decides again with its own plane (mode, toggles, standing permissions): a forwarded
// `allow` that it would have to ask about is asked. A failure goes back as an error of the same
// kind, viewer-reported or not, so the asking bridge raises it as if the call had been local.
import { ProtocolError, parseToolArgs } from '@overlay-companion/protocol';
import type { Msg } from 'nats';
import type { Logger } from 'pino';
import { errorMessage } from '../errors.js';
import type { DesktopPlane, DesktopPlanes } from '../mcp/desktopPlanes.js';
import { decideOnPlane } from '../mcp/planeDecision.js';
import { ViewerReportedError } from '../relay/callRelay.js';
import { answerPings } from './bridgePing.js';
import {
  ForwardedAnswer,
  ForwardedCall,
  ForwardedCancel,
  ForwardedModeApproval,
} from './messages.js';
import type { SiteBus } from './siteBus.js';

export interface ForwardedCallsHereOptions {
  bus: SiteBus;
  planes: DesktopPlanes;
  logger: Logger;
}

export class ForwardedCallsHere {
  /** Forwarded calls running here, by caller and call id: their cancellations. */
  private readonly running = new Map<string, AbortController>();

  /** Takes forwarded calls, mode raises and cancellations at this bridge's subjects. */
  constructor(private readonly options: ForwardedCallsHereOptions) {
    const { bus } = options;
    bus.listen(bus.bridgeSubject(bus.bridgeId, 'call'), ForwardedCall, (call, msg) =>
      this.answer(call, msg),
    );
    bus.listen(bus.bridgeSubject(bus.bridgeId, 'approve'), ForwardedModeApproval, (ask, msg) =>
      this.answerApproval(ask, msg),
    );
    bus.listen(bus.bridgeSubject(bus.bridgeId, 'cancel'), ForwardedCancel, (cancel) => {
      this.running.get(`${cancel.from}:${cancel.callId}`)?.abort();
    });
    // "Still there?" from a bridge whose call runs here: a sealed yes.
    answerPings(bus);
  }

  /** Cancels every forwarded call still running here (the bridge is closing). */
  close(): void {
    for (const controller of this.running.values()) controller.abort();
  }

  /** A forwarded call, run at this bridge's control window of the desktop. */
  private async answer(call: ForwardedCall, msg: Msg): Promise<void> {
    const respond = (answer: ForwardedAnswer): void => this.respond(msg, answer, call.tool);
    const plane = await this.options.planes.ifLoaded(call.desktopId);
    if (plane === undefined || plane.hub.control === undefined) {
      const error =
        plane?.hub.noViewerError() ??
        new ProtocolError('viewer_unavailable', 'The desktop has no control window open.');
      respond(failure(error));
      return;
    }
    const parsed = parseToolArgs(call.tool, call.args);
    if (!parsed.ok) {
      respond(failure(new ProtocolError('invalid_parameters', parsed.error)));
      return;
    }
    const policy = this.policyHere(plane, call, parsed.value);
    if (policy instanceof ProtocolError) {
      respond(failure(policy));
      return;
    }
    const key = `${call.from}:${call.callId}`;
    const controller = new AbortController();
    this.running.set(key, controller);
    try {
      const result = await plane.hub.call(call.tool, parsed.value, policy, {
        timeoutMs: call.timeoutMs,
        signal: controller.signal,
        client: call.client,
        standingId: call.standingId,
      });
      respond({ ok: true, result });
    } catch (err) {
      respond(failure(err));
    } finally {
      this.running.delete(key);
    }
  }

  /** A mode raise forwarded here: asked at this bridge's control window of the desktop. */
  private async answerApproval(ask: ForwardedModeApproval, msg: Msg): Promise<void> {
    const respond = (answer: ForwardedAnswer): void => this.respond(msg, answer, 'set_mode');
    const plane = await this.options.planes.ifLoaded(ask.desktopId);
    const control = plane?.hub.control;
    if (plane === undefined || control === undefined || control.headless) {
      // Never approved through a client: only a person, in a window (mcp/tools/mode.ts).
      respond(
        failure(
          new ProtocolError(
            'viewer_unavailable',
            `Switching from ${ask.fromMode} to ${ask.toMode} needs the person in one of their viewer windows. ${plane?.hub.noViewerGuidance() ?? ''}`.trim(),
          ),
        ),
      );
      return;
    }
    const key = `${ask.from}:${ask.callId}`;
    const controller = new AbortController();
    this.running.set(key, controller);
    try {
      const { approved, answered } = await plane.hub.requestModeApproval(
        { from: ask.fromMode, to: ask.toMode, metadata: ask.metadata, requestedBy: 'ai' },
        { timeoutMs: ask.timeoutMs, signal: controller.signal },
      );
      respond({ ok: true, approved, answered });
    } catch (err) {
      respond(failure(err));
    } finally {
      this.running.delete(key);
    }
  }

  /**
   * Answers a forwarded request. An answer larger than the NATS server takes (max_payload, 1 MB
   * by default: a large screenshot) is replaced by an error that says so, not left unanswered.
   */
  private respond(msg: Msg, answer: ForwardedAnswer, name: string): void {
    if (msg.reply === undefined || msg.reply === '') return;
    const { bus } = this.options;
    const data = bus.sealReply(msg, answer);
    const max = bus.nc.info?.max_payload ?? Number.POSITIVE_INFINITY;
    if (data.byteLength <= max) {
      msg.respond(data);
      return;
    }
    this.options.logger.warn(
      { bytes: data.byteLength, max },
      'site: a forwarded answer is too large',
    );
    msg.respond(
      bus.sealReply(
        msg,
        failure(
          new ProtocolError(
            'system_error',
            `The ${name} result (${data.byteLength} bytes) is larger than the site's NATS server takes (max_payload ${max} bytes), so it could not come back from the bridge that holds the control window. Ask a smaller region or scale, or have the operator raise max_payload (the README's "Several bridges").`,
          ),
        ),
      ),
    );
  }

  /**
   * What this bridge's own plane says of the call: a deny refuses it; an `allow` the plane would
   * ask about stands only on a standing permission it knows, or when its control window is the
   * headless viewer (the caller asked the MCP client); otherwise the person is asked.
   */
  private policyHere(
    plane: DesktopPlane,
    call: ForwardedCall,
    args: unknown,
  ): 'allow' | 'confirm' | ProtocolError {
    const verdict = decideOnPlane(plane, call.tool, args);
    if (verdict.decision === 'deny') return new ProtocolError('permission_denied', verdict.message);
    if (verdict.decision === 'allow' || call.policy === 'confirm') return call.policy;
    const standing =
      call.standingId === undefined ? undefined : plane.standing.byId(call.standingId);
    if (standing !== undefined || plane.hub.control?.headless === true) return 'allow';
    return 'confirm';
  }
}

function failure(err: unknown): ForwardedAnswer {
  const error =
    err instanceof ProtocolError
      ? err
      : new ProtocolError(
          'system_error',
          `The call failed on the bridge that holds the window: ${errorMessage(err)}`,
        );
  const info = error.toInfo();
  return {
    ok: false,
    error: {
      kind: info.kind,
      message: info.message,
      ...(info.retry_after_ms === undefined ? {} : { retryAfterMs: info.retry_after_ms }),
      viewer: error instanceof ViewerReportedError,
      ...(error instanceof ViewerReportedError && error.asked !== undefined
        ? { asked: error.asked }
        : {}),
    },
  };
}
