// Where each message a window sends goes (after viewerSocket.ts parsed it): call answers to the
// call relay, overlays to the overlay relay, Stop, mode_set, standing permissions and the charge
// to whoever decides them, and what the person's windows share to the others. The checks of who
// may say what that belong to the message itself are here: only the person in charge sets the
// mode or makes standing permissions, a view-only window cannot take over, and an `event` nobody
// asked for, or of a person not in charge, is dropped unread.
import {
  eventAllowed,
  type BridgeToViewer,
  type Mode,
  type Permissions,
  type ViewerToBridge,
} from '@overlay-companion/protocol';
import type { Logger } from 'pino';
import type { ModeState } from '../policy/modeState.js';
import type { CallOptions, CallRelay, ModeApprovalAnswer } from './callRelay.js';
import type { EventInterest } from './eventInterest.js';
import { handleModeSet } from './modeSetRequest.js';
import type { OverlayRelay } from './overlayRelay.js';
import type { HubListener } from './hubWiring.js';
import type { ViewerList } from './viewerList.js';
import type { ViewerPeer } from './viewerPeer.js';
import type { SharedWindowState } from './windowsShared.js';

/** What routing needs of the hub. */
export interface MessageRoutes {
  windows: ViewerList;
  calls: CallRelay;
  overlays: OverlayRelay;
  shared: SharedWindowState;
  interest: EventInterest;
  listeners: ReadonlySet<HubListener>;
  mode: ModeState;
  logger: Logger;
  inCharge: () => string;
  permissions: () => Permissions;
  takeControl: (peer: ViewerPeer) => string | undefined;
  answer: (
    peer: ViewerPeer,
    message: Extract<ViewerToBridge, { type: 'approval_answer' }>,
  ) => string | undefined;
  stop: (reason: string, byPersonId: string | undefined) => void;
  requestModeApproval: (
    request: {
      from: Mode;
      to: Mode;
      metadata: Record<string, unknown> | undefined;
      requestedBy: 'ai' | 'person';
    },
    options: CallOptions,
  ) => Promise<ModeApprovalAnswer>;
  broadcast: (message: BridgeToViewer) => void;
}

/** Routes one parsed message from `viewerId`. Returns an error text to send back, if any. */
export function routeViewerMessage(
  hub: MessageRoutes,
  viewerId: string,
  message: ViewerToBridge,
): string | undefined {
  const role = hub.windows.roleOf(viewerId);
  if (role === undefined) return undefined;
  const peer = (): ViewerPeer | undefined => hub.windows.peer(viewerId);
  switch (message.type) {
    case 'tool_result':
    case 'tool_error':
      return hub.calls.settleCall(viewerId, message);
    case 'input_sent':
      return hub.calls.inputSent(viewerId, message);
    case 'approval':
      return hub.calls.settleApproval(viewerId, message);
    case 'approval_answer':
    case 'take_control': {
      const from = peer();
      if (from === undefined) return undefined;
      return message.type === 'take_control' ? hub.takeControl(from) : hub.answer(from, message);
    }
    case 'overlay_created':
    case 'overlay_removed':
    case 'clear_overlays':
    case 'request_sync':
    case 'sync_state':
      return hub.overlays.handle(viewerId, role === 'control', message);
    case 'stop_pressed':
      hub.logger.warn({ viewerId }, 'Stop pressed');
      hub.stop('Stopped by the person.', peer()?.personId);
      return undefined;
    case 'mode_set':
      if (peer()?.personId !== hub.inCharge())
        return 'mode_set: only the person in charge of this desktop sets its AI mode; Stop works for everyone.';
      return handleModeSet(
        {
          mode: hub.mode,
          headless: peer()?.headless === true,
          logger: hub.logger,
          requestApproval: (request, options) => hub.requestModeApproval(request, options),
        },
        message,
      );
    case 'standing_grant':
    case 'standing_revoke': {
      const from = peer();
      if (from === undefined) return undefined;
      const refused = hub.windows.notInCharge(from, message.type);
      if (refused !== undefined) return refused;
      const call =
        message.type === 'standing_grant'
          ? hub.calls.pendingCall(viewerId, message.call_id)
          : undefined;
      for (const listener of hub.listeners) {
        const problem = listener.standing?.(from, message, call);
        if (problem !== undefined) return problem;
      }
      return undefined;
    }
    case 'charge': {
      const from = peer();
      if (from === undefined) return undefined;
      for (const listener of hub.listeners) {
        const problem = listener.charge?.(from, message);
        if (problem !== undefined) return problem;
      }
      return undefined;
    }
    case 'approvals_waiting':
    case 'ai_action':
    case 'take_over': {
      const headless = peer()?.headless === true;
      if (message.type === 'take_over' && peer()?.access === 'view')
        return 'take_over: a view-only window cannot take the desktop over; Stop works for everyone.';
      const verdict = hub.shared.fromWindow(message, { role, headless });
      if ('error' in verdict) return verdict.error;
      if (verdict.to === 'others') hub.windows.toOthers(viewerId, verdict.message);
      else if (verdict.to === 'all') hub.broadcast(verdict.message);
      if (message.type === 'approvals_waiting' && verdict.to !== 'nobody')
        for (const listener of hub.listeners) listener.approvalsListed?.(message);
      if (message.type === 'ai_action' && verdict.to !== 'nobody')
        for (const listener of hub.listeners) listener.aiAction?.(message);
      if (message.type === 'take_over') {
        const by = peer()?.personId;
        for (const listener of hub.listeners) listener.takeOver?.(message.on, by);
      }
      return undefined;
    }
    case 'event':
      // Defence in depth: a viewer that has not heard event_interest yet (or an older or
      // misbehaving one) may send what nobody asked for, or what the person's toggles no
      // longer allow. Drop it here, unbuffered and without an error back: the race after an
      // unsubscribe or a toggle is normal, not a fault.
      if (!hub.interest.has(message.event.type)) return undefined;
      // Only the person in charge agreed (by their toggles) to let the AI read what they do;
      // a watcher's pointer and keys never reach that AI.
      if (peer()?.personId !== hub.inCharge()) return undefined;
      if (!eventAllowed(hub.permissions(), message.event.type)) return undefined;
      for (const listener of hub.listeners) listener.event?.(message.event, viewerId);
      return undefined;
    default: {
      const unknownMessage: never = message;
      void unknownMessage;
      return undefined;
    }
  }
}
