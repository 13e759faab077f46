// API tokens for MCP clients (/api/tokens): each belongs to the person who made it, is shown
// once at creation, stored only as a hash, and can expire or be revoked.
import { z } from 'zod';
import { EpochMs } from '../common.js';
import { ApiId, PrintableName } from './common.js';

/** Every token starts with this, so scanners (and people) can recognise one. */
export const TOKEN_PREFIX = 'oc_';
/** The whole token: the prefix, then 43 base64url characters (32 random bytes). */
export const TOKEN_PATTERN = /oc_[A-Za-z0-9_-]{43}/;

export const TokenName = PrintableName;

export const TokenView = z.object({
  id: ApiId,
  name: z.string(),
  created_at: EpochMs,
  expires_at: EpochMs.nullable(),
  last_used_at: EpochMs.nullable(),
  revoked_at: EpochMs.nullable(),
  /** The first characters of the token, to tell tokens apart (never enough to use one). */
  hint: z.string().max(16),
  /** The desktops this token may use; null: every desktop its person may use. */
  desktops: z.array(ApiId).nullable(),
});
export type TokenView = z.infer<typeof TokenView>;

export const TokenList = z.object({ tokens: z.array(TokenView) });

export const CreateTokenRequest = z.strictObject({
  name: TokenName,
  /** Days until it stops working; omitted or null: until revoked. */
  expires_in_days: z.int().min(1).max(3650).nullable().optional(),
  /** The desktops it may use (ids); omitted or null: every desktop its person may use. */
  desktops: z.array(ApiId).min(1).max(100).nullable().optional(),
});
export type CreateTokenRequest = z.infer<typeof CreateTokenRequest>;

/** The answer to a create: `secret` is shown this once and never again. */
export const CreatedToken = z.object({ token: TokenView, secret: z.string() });
export type CreatedToken = z.infer<typeof CreatedToken>;
