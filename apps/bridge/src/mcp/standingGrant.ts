// A window's standing_grant and standing_revoke, checked before they change anything. The hub
// has already checked the window belongs to the person in charge (not the headless viewer, not
// a view grant); here: a grant must answer a question really being asked at that window — a
// call that waits there with policy confirm, from a known AI client, for an input tool, and not
// one the AI itself asked to have confirmed — so no page, mirror or AI can make a permission out
// of nothing; a revoke must name a permission that still lasts.
import {
  needsInputPolicy,
  wantsConfirmation,
  type AiClientRef,
  type InputPolicyToolName,
  type ViewerToBridge,
} from '@overlay-companion/protocol';
import type { PendingCallInfo } from '../relay/callRelay.js';
import type { StandingPermissions } from '../policy/standingPermissions.js';

type StandingMessage = Extract<ViewerToBridge, { type: 'standing_grant' | 'standing_revoke' }>;

/** Applies `message` from a window of `person`; returns why it was refused, if it was. */
export function applyStandingMessage(
  standing: StandingPermissions,
  person: { id: string; name: string },
  message: StandingMessage,
  call: PendingCallInfo | undefined,
): string | undefined {
  if (message.type === 'standing_revoke') {
    return standing.revoke(message.id, person.id)
      ? undefined
      : `standing_revoke: standing permission ${message.id} already ended; nothing changed.`;
  }
  const checked = grantable(call);
  if (typeof checked === 'string') return `standing_grant: ${checked} Nothing was allowed.`;
  standing.grant({ ...checked, minutes: message.minutes, grantedBy: person });
  return undefined;
}

/** What the grant would allow, or why it may not be made. */
function grantable(
  call: PendingCallInfo | undefined,
): string | { tool: InputPolicyToolName; client: AiClientRef } {
  if (call === undefined)
    return 'no such call waits at this window (it was answered, withdrawn or timed out).';
  if (call.policy !== 'confirm') return `${call.name} was not asking the person.`;
  if (!needsInputPolicy(call.name)) return `${call.name} never needs an approval.`;
  if (call.client === undefined) return 'the AI client that made the call is not known.';
  if (wantsConfirmation(call.args))
    return `the AI asked for this ${call.name} to be confirmed each time (require_user_confirmation).`;
  return { tool: call.name, client: call.client };
}
