// Standing permissions on the wire. The bridge keeps them (one list per desktop, the person in
// charge's): a window asks for one only by answering an approval it is showing
// (standing_grant, naming the bridge's call id, so nothing but a real question can make one),
// any window of the person in charge ends one (standing_revoke), and every window is told the
// list after hello and on each change (standing_permissions), with times relative to receipt so
// a wrong clock in the browser changes nothing. The rule for using one is standingPermission.ts.
import { z } from 'zod';
import { Id } from './common.js';
import { AiClientRef } from './aiClient.js';
import { STANDING_PERMISSION_MINUTES } from './standingPermission.js';
import { INPUT_POLICY_TOOLS, type InputPolicyToolName } from './tools/names.js';

/** Most standing permissions one desktop holds (one per tool and AI client). */
export const MAX_STANDING_PERMISSIONS = 64;

const InputTool = z.enum(INPUT_POLICY_TOOLS as [InputPolicyToolName, ...InputPolicyToolName[]]);

/** How long a permission lasts: one of the offered minutes, or null for the AI client's session. */
export const StandingMinutes = z
  .union(
    STANDING_PERMISSION_MINUTES.map((m) => z.literal(m)) as [
      z.ZodLiteral<5>,
      ...z.ZodLiteral<number>[],
    ],
  )
  .nullable()
  .describe(
    'Minutes it lasts; null: until the AI client has no session left on this desktop. Stop ends it either way.',
  );

export const StandingPermissionView = z.strictObject({
  id: Id.describe('The bridge’s id, shown as “standing permission N” in the audit log.'),
  number: z.int().min(1).describe('N in “standing permission N”.'),
  tool: InputTool,
  client: AiClientRef,
  expires_in_ms: z
    .int()
    .min(0)
    .max(24 * 3_600_000)
    .nullable()
    .describe('Time left from receipt; null: until the AI client’s sessions end.'),
  granted_by: z.string().min(1).max(200).describe('The person who answered the approval.'),
});
export type StandingPermissionView = z.infer<typeof StandingPermissionView>;

/** Bridge → every window of the desktop: its standing permissions now. */
export const StandingPermissionsMessage = z.strictObject({
  type: z.literal('standing_permissions'),
  permissions: z.array(StandingPermissionView).max(MAX_STANDING_PERMISSIONS),
});
export type StandingPermissionsMessage = z.infer<typeof StandingPermissionsMessage>;

/**
 * Control window → bridge: the person answered the approval for call `call_id` with "allow this
 * for a while". Sent just before the approval's own outcome; the bridge refuses it unless that
 * call is waiting at this window, asks the person, and comes from an AI client.
 */
export const StandingGrantMessage = z.strictObject({
  type: z.literal('standing_grant'),
  call_id: Id,
  minutes: StandingMinutes,
});

/** Any window of the person in charge → bridge: end standing permission `id` now. */
export const StandingRevokeMessage = z.strictObject({
  type: z.literal('standing_revoke'),
  id: Id,
});
