// Relaying tool calls and mode-approval requests to the control viewer and settling them from
// its answers. This module owns what is waiting: the pending calls (and the tool name of each,
// so a mode change can withdraw the ones the new mode denies), the pending approvals, their
// ids, and the tool_cancel sent when the bridge stops waiting. Which viewer is the control one,
// how text reaches a socket and when viewers leave or Stop is pressed stay with the hub
// (viewerHub.ts), which calls rejectForViewer / rejectAll.
//
// An input call also carries a receipt token (tunnel/callReceipts.ts) when this bridge's tunnels
// can see its receipt: the viewer announces the answer it will give (input_sent) and the call
// settles with it as soon as a tunnel answers the receipt delivered, the viewer's own answer
// that follows being dropped (earlySettlement.ts).
import { randomBytes } from 'node:crypto';
import {
  DESKTOP_INPUT_TOOLS,
  ProtocolError,
  decideCall,
  type AiClientRef,
  type AskEnding,
  encodeBridgeMessage,
  parseToolResult,
  type BridgeToViewer,
  type Mode,
  type Permissions,
  type ToolArgs,
  type ToolCallMessage,
  type ViewerToolName,
  type ToolViewerResult,
  type ViewerToBridge,
} from '@overlay-companion/protocol';
import type { ModeSnapshot } from '../policy/modeState.js';
import { PendingTable } from './pendingCalls.js';
import { EarlySettlement, type DesktopReceipts } from './earlySettlement.js';

/** Input tools whose receipt a tunnel here may answer for the bridge. */
const RECEIPTED: ReadonlySet<ViewerToolName> = new Set(DESKTOP_INPUT_TOOLS);

/** A ProtocolError the viewer reported (tool_error), as opposed to one the bridge raised. */
export class ViewerReportedError extends ProtocolError {
  /** The call ended with its question to the person: how that ended. */
  asked: AskEnding | undefined;
}

/** The person's answer to a mode raise. */
export interface ModeApprovalAnswer {
  approved: boolean;
  /** The person answered before the deadline (not approved and not answered: nobody did). */
  answered: boolean;
}

/** A call waiting at a viewer, as relayed. */
export interface PendingCallInfo {
  name: ViewerToolName;
  args: unknown;
  policy: 'allow' | 'confirm';
  client: AiClientRef | undefined;
}

export interface CallOptions {
  timeoutMs: number;
  signal?: AbortSignal | undefined;
  /** The AI client making the call, shown to the person and what standing permissions match. */
  client?: AiClientRef | undefined;
  /** policy allow because of this standing permission: the viewer checks its own list for it. */
  standingId?: string | undefined;
}

/** How the relay reaches viewers; the hub keeps the sockets and the roles. */
export interface CallRoutes {
  /** The control viewer, if any. */
  control():
    { readonly id: string; readonly personId: string; send(text: string): void } | undefined;
  toViewer(viewerId: string, text: string): void;
  /** The viewer_unavailable error for a call that finds no control viewer. */
  noViewer(): ProtocolError;
  /** The "no viewer" guidance for viewer_unavailable errors. */
  noViewerGuidance(): string;
  /** The person's toggles, for withdrawing calls they no longer allow. */
  permissions(): Permissions;
  /** Receipt tokens this bridge's tunnels answer (absent: calls settle on the viewer's answer). */
  receipts?: () => DesktopReceipts | undefined;
}

export class CallRelay {
  private readonly calls = new PendingTable<Record<string, unknown>>();
  /** What each waiting call is, so a mode change can withdraw it and a standing grant name it. */
  private readonly callInfo = new Map<string, PendingCallInfo>();
  private readonly approvals = new PendingTable<{ approved: boolean; answered: boolean }>();
  private counter = 0;
  private readonly early = new EarlySettlement((id, result) => this.calls.resolve(id, result));

  constructor(private readonly routes: CallRoutes) {}

  get pendingCalls(): number {
    return this.calls.size;
  }

  /**
   * Relays a validated call to the control viewer and resolves with its validated result.
   * Rejects with ProtocolError: viewer_unavailable (none, or it left), timeout, cancelled, the
   * viewer's own tool_error, or system_error for a malformed result.
   */
  async call<N extends ViewerToolName>(
    name: N,
    args: ToolArgs<N>,
    policy: 'allow' | 'confirm',
    options: CallOptions,
  ): Promise<ToolViewerResult<N>> {
    // Cancelled before it left (e.g. while the MCP client was asked to approve it): the viewer
    // must never see it, or it could run an action the client was told was cancelled.
    if (options.signal?.aborted === true)
      throw new ProtocolError('cancelled', `${name} was cancelled by the MCP client.`);
    const control = this.routes.control();
    if (control === undefined) throw this.routes.noViewer();
    const id = this.nextId('call');
    const receipts = RECEIPTED.has(name) ? this.routes.receipts?.() : undefined;
    const receipt =
      receipts === undefined ? undefined : this.early.open(id, control.personId, receipts);
    const message = {
      type: 'tool_call',
      id,
      name,
      args,
      policy,
      deadline_ms: options.timeoutMs,
      ...(options.client === undefined ? {} : { client: options.client }),
      ...(options.standingId === undefined ? {} : { standing_id: options.standingId }),
      ...(receipt === undefined ? {} : { receipt }),
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
    this.callInfo.set(id, {
      name,
      args,
      policy,
      client: options.client,
    });
    control.send(encodeBridgeMessage(message));
    try {
      const raw = await answer;
      const parsed = parseToolResult(name, raw);
      if (!parsed.ok) throw new ProtocolError('system_error', parsed.error);
      return parsed.value;
    } finally {
      this.callInfo.delete(id);
      this.early.close(id);
    }
  }

  /**
   * Asks the person at the control viewer to approve a mode raise. Resolves with the answer
   * (not approved, and not answered, when the deadline passes); rejects with
   * viewer_unavailable when no viewer can ask.
   */
  requestModeApproval(
    request: {
      from: Mode;
      to: Mode;
      metadata: Record<string, unknown> | undefined;
      requestedBy: 'ai' | 'person';
    },
    options: CallOptions,
  ): Promise<ModeApprovalAnswer> {
    const control = this.routes.control();
    if (control === undefined) {
      return Promise.reject(
        new ProtocolError('viewer_unavailable', this.routes.noViewerGuidance()),
      );
    }
    const id = this.nextId('approval');
    const answer = this.approvals.wait(id, {
      viewerId: control.id,
      timeoutMs: options.timeoutMs,
      signal: options.signal,
      onTimeout: () => ({ value: { approved: false, answered: false } }),
    });
    const message: BridgeToViewer = {
      type: 'approval_request',
      request_id: id,
      from_mode: request.from,
      to_mode: request.to,
      requested_by: request.requestedBy,
      ...(request.metadata === undefined ? {} : { metadata: request.metadata }),
      deadline_ms: options.timeoutMs,
    };
    control.send(encodeBridgeMessage(message));
    return answer;
  }

  /** Settles a call from `viewerId`'s answer. Returns an error text to send back, if any. */
  settleCall(
    viewerId: string,
    message: Extract<ViewerToBridge, { type: 'tool_result' | 'tool_error' }>,
  ): string | undefined {
    if (this.calls.viewerOf(message.id) !== viewerId) {
      // The answer to a call its receipt settled: expected, and nothing to do.
      if (this.early.answeredLate(viewerId, message.id)) return undefined;
      // Late answers after a timeout or Stop land here; the call was already failed.
      return `${message.type} for unknown or finished call ${message.id}`;
    }
    if (message.type === 'tool_result') {
      this.calls.resolve(message.id, message.result);
    } else {
      const error = new ViewerReportedError(message.kind, message.message, message.retry_after_ms);
      error.asked = message.asked;
      this.calls.reject(message.id, error);
    }
    return undefined;
  }

  /**
   * `viewerId` sent the input of a call behind its receipt token, and says what it answers once
   * that is delivered. Returns an error text to send back, if any.
   */
  inputSent(
    viewerId: string,
    message: Extract<ViewerToBridge, { type: 'input_sent' }>,
  ): string | undefined {
    if (this.calls.viewerOf(message.id) !== viewerId)
      return this.early.answeredLate(viewerId, message.id, false)
        ? undefined
        : `input_sent for unknown or finished call ${message.id}`;
    return this.early.resultKnown(message.id, viewerId, message.result)
      ? undefined
      : `input_sent for call ${message.id}, which has no receipt token`;
  }

  /** Settles an approval from `viewerId`'s answer. Returns an error text to send back, if any. */
  settleApproval(
    viewerId: string,
    message: Extract<ViewerToBridge, { type: 'approval' }>,
  ): string | undefined {
    if (this.approvals.viewerOf(message.request_id) !== viewerId) {
      return `approval for unknown or expired request ${message.request_id}`;
    }
    this.approvals.resolve(message.request_id, { approved: message.approved, answered: true });
    return undefined;
  }

  /** Fails every call and approval sent to `viewerId` (it left). */
  rejectForViewer(viewerId: string, error: () => ProtocolError): void {
    for (const id of this.calls.rejectForViewer(viewerId, error)) this.callInfo.delete(id);
    this.approvals.rejectForViewer(viewerId, error);
  }

  /** Fails every call and approval (Stop). */
  rejectAll(error: () => ProtocolError): void {
    for (const id of this.calls.rejectAll(error)) this.callInfo.delete(id);
    this.approvals.rejectAll(error);
  }

  /**
   * A mode or permission change applies to calls still waiting at the viewer too: any the new
   * policy denies is failed and withdrawn at once, so a confirmation dialog approved after the
   * person lowered the mode (or turned a toggle off) cannot act.
   */
  revokeDenied(snapshot: ModeSnapshot): void {
    const permissions = this.routes.permissions();
    for (const [id, { name }] of [...this.callInfo]) {
      const verdict = decideCall({
        mode: snapshot.mode,
        metadata: snapshot.metadata,
        permissions,
        tool: name,
        args: undefined,
      });
      if (verdict.decision !== 'deny') continue;
      this.cancelOnViewer(id, `The policy changed and no longer allows ${name}.`);
      this.calls.reject(
        id,
        new ProtocolError(
          'permission_denied',
          `${name} was withdrawn before it ran: ${verdict.message}`,
        ),
      );
      this.callInfo.delete(id);
    }
  }

  /** The call `id` while it waits at `viewerId` (undefined: not there, or finished). */
  pendingCall(viewerId: string, id: string): PendingCallInfo | undefined {
    return this.calls.viewerOf(id) === viewerId ? this.callInfo.get(id) : undefined;
  }

  private cancelOnViewer(id: string, reason: string): void {
    const viewerId = this.calls.viewerOf(id);
    if (viewerId === undefined) return;
    this.routes.toViewer(viewerId, encodeBridgeMessage({ type: 'tool_cancel', id, reason }));
  }

  private nextId(prefix: string): string {
    this.counter += 1;
    return `${prefix}_${this.counter}_${randomBytes(4).toString('hex')}`;
  }
}
