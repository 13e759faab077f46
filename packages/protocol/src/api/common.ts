// Building blocks of the HTTP API's bodies: the error answer every refusal uses, and the fields
// several endpoints share (usernames, names, passwords, people as the API shows them).
import { z } from 'zod';
import { EpochMs } from '../common.js';

/**
 * Every 4xx/5xx answer of /api: a sentence for the person that says what to do. `retry_after_ms`
 * comes with 429 (also in the Retry-After header); `field` names the body field at fault.
 */
export const ApiError = z.object({
  error: z.string().max(2000),
  retry_after_ms: z.int().min(0).optional(),
  field: z.string().max(100).optional(),
});
export type ApiError = z.infer<typeof ApiError>;

/** Sign-in names: letters, digits and . _ @ - (so an email address works), compared lower-case. */
export const Username = z
  .string()
  .trim()
  .min(1, { error: 'is required' })
  .max(64, { error: 'must be at most 64 characters' })
  .regex(/^[A-Za-z0-9._@-]+$/, { error: 'may contain only letters, digits and . _ @ -' });

/** No control characters (PostgreSQL refuses NUL; none belong in a name). */
const NO_CONTROL = /^\P{Cc}*$/u;

/** What people are called on screen: any text, shown as text (never as HTML). */
export const DisplayName = z
  .string()
  .trim()
  .min(1, { error: 'is required' })
  .max(100, { error: 'must be at most 100 characters' })
  .regex(NO_CONTROL, { error: 'must not contain control characters' });

/** A name people give things (tokens, layouts): printable text. */
export const PrintableName = z
  .string()
  .trim()
  .min(1, { error: 'is required' })
  .max(64, { error: 'must be at most 64 characters' })
  .regex(NO_CONTROL, { error: 'must not contain control characters' });

export const MIN_PASSWORD_LENGTH = 10;
export const Password = z
  .string()
  .min(MIN_PASSWORD_LENGTH, { error: `must be at least ${MIN_PASSWORD_LENGTH} characters` })
  .max(1024, { error: 'must be at most 1024 characters' });

export const Role = z.enum(['admin', 'member']);
export type Role = z.infer<typeof Role>;

/** Opaque ids minted by the bridge (people, tokens). */
export const ApiId = z
  .string()
  .min(1)
  .max(64)
  .regex(/^[A-Za-z0-9_-]+$/);

/** A person as the API shows them: never a password hash. */
export const PersonView = z.object({
  id: ApiId,
  username: z.string(),
  display_name: z.string(),
  role: Role,
  disabled: z.boolean(),
  created_at: EpochMs,
  /** False for people who sign in only through OpenID Connect. */
  has_password: z.boolean(),
  oidc_linked: z.boolean(),
});
export type PersonView = z.infer<typeof PersonView>;
