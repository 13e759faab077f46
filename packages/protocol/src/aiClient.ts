// Which AI client is acting: the one identity shared by the bridge (which knows the MCP session's
// token and the client's name from initialize), the tool calls it relays, the person's standing
// permissions ("allow this for N minutes", scoped to one AI client) and the viewer's list of
// connected AI clients. The key survives reconnects (a new MCP session of the same client with
// the same token is the same AI client); it holds no secret (a token's id, never the token).
import { z } from 'zod';

/** Name shown when the MCP client sent no clientInfo at initialize. */
export const UNKNOWN_CLIENT_NAME = 'unknown client';

export const AiClientRef = z.strictObject({
  key: z
    .string()
    .min(1)
    .max(240)
    .describe('Stable identity: the token id and the client name. Compare, never show.'),
  name: z.string().min(1).max(100).describe('clientInfo.name from MCP initialize.'),
  token: z.string().min(1).max(100).describe('The name of the token the client signed in with.'),
});
export type AiClientRef = z.infer<typeof AiClientRef>;

/** The reference for a client `name` (null: it sent none) acting with token `tokenId`/`tokenName`. */
export function aiClientRef(tokenId: string, tokenName: string, name: string | null): AiClientRef {
  const shown = name === null || name.trim() === '' ? UNKNOWN_CLIENT_NAME : name.slice(0, 100);
  return {
    key: `${tokenId.slice(0, 100)}:${shown}`,
    name: shown,
    token: tokenName.trim() === '' ? 'unnamed token' : tokenName.slice(0, 100),
  };
}
