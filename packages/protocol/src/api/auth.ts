// Sign-in, first-run setup and the signed-in person's own account (/api/auth/*, /api/me*).
import { z } from 'zod';
import { EpochMs } from '../common.js';
import { Permissions } from '../permissions.js';
import { DisplayName, Password, PersonView, Username } from './common.js';

export const AuthState = z.object({
  /** True until the first admin exists: the sign-in page then explains the setup link. */
  setup_needed: z.boolean(),
  signed_in: z.boolean(),
  /** Present when OpenID Connect sign-in is configured. */
  oidc: z.object({ label: z.string().max(100) }).nullable(),
});
export type AuthState = z.infer<typeof AuthState>;

/** POST /api/auth/setup: the one-time code from the link `serve` printed, and the admin. */
export const SetupRequest = z.strictObject({
  code: z.string().min(1).max(200),
  username: Username,
  display_name: DisplayName.optional(),
  password: Password,
});
export type SetupRequest = z.infer<typeof SetupRequest>;

export const SignInRequest = z.strictObject({
  username: z.string().min(1).max(200),
  password: z.string().min(1).max(1024),
});
export type SignInRequest = z.infer<typeof SignInRequest>;

/** The signed-in person, their toggles and what state-changing requests must carry. */
export const Me = z.object({
  person: PersonView,
  permissions: Permissions,
  csrf_token: z.string().min(16).max(200),
  session: z.object({
    /** The session ends at this time whatever happens (absolute expiry). */
    expires_at: EpochMs,
    /** It ends earlier after this much time without any request or open viewer. */
    idle_timeout_ms: z.int().min(0),
    method: z.enum(['password', 'oidc', 'headless']),
  }),
});
export type Me = z.infer<typeof Me>;

export const ChangePasswordRequest = z.strictObject({
  current_password: z.string().min(1).max(1024),
  new_password: Password,
});
export type ChangePasswordRequest = z.infer<typeof ChangePasswordRequest>;
