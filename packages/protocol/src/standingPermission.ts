// Standing permissions: "allow this for N minutes" and "allow this tool for this AI session", the
// person's answer to one approval that spares them the same question for a while. The one rule
// for using them lives here. A standing permission only turns an ASK into an allow, for one
// tool and one AI client (AiClientRef.key); it never allows what the mode or the person's
// toggles deny, never answers a call where the AI itself asked to be confirmed
// (require_user_confirmation), and Stop ends them all.
import type { CallDecision } from './policy.js';
import { wantsConfirmation } from './policy.js';
import type { ToolName } from './tools/names.js';

/** The durations the approval panel offers, in minutes. */
export const STANDING_PERMISSION_MINUTES = [5, 15, 60] as const;

export interface StandingPermission {
  id: string;
  tool: ToolName;
  /** AiClientRef.key of the client it was given to. */
  clientKey: string;
  /** Epoch ms when it ends; null: until the AI client has no session left (or Stop). */
  expiresAt: number | null;
}

export interface StandingCall {
  tool: ToolName;
  args: unknown;
  /** AiClientRef.key of the calling client; undefined (unknown client) never matches. */
  clientKey: string | undefined;
}

/** The standing permission that turns this call's ask into an allow, if any. */
export function matchingStandingPermission(
  verdict: CallDecision,
  call: StandingCall,
  permissions: readonly StandingPermission[],
  now: number,
): StandingPermission | undefined {
  if (verdict.decision !== 'confirm') return undefined;
  if (call.clientKey === undefined || wantsConfirmation(call.args)) return undefined;
  return permissions.find(
    (p) =>
      p.tool === call.tool &&
      p.clientKey === call.clientKey &&
      (p.expiresAt === null || p.expiresAt > now),
  );
}
