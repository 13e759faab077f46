// Who is calling /mcp: turns an Authorization header into a principal (an opaque token id that
// sessions are bound to), or nothing. `--no-auth` is a separate authenticator so the refusal
// rules for it (loopback only) live in one place: `assertNoAuthAllowed`.
import { createHash } from 'node:crypto';
import { UsageError } from '../errors.js';
import { isLoopbackHost } from './loopback.js';
import { bearerFrom, tokensEqual } from './mcpToken.js';

export interface McpPrincipal {
  /** Stable id of the token that authenticated (a hash prefix, never the token itself). */
  tokenId: string;
}

export interface McpAuthenticator {
  /** False only for `--no-auth`. */
  readonly required: boolean;
  authenticate(authorization: string | undefined): McpPrincipal | undefined;
}

function tokenId(token: string): string {
  return `tok_${createHash('sha256').update(token).digest('hex').slice(0, 16)}`;
}

/** Accepts any of `tokens` (usually one: OC_MCP_TOKEN or the generated token). */
export function tokenAuthenticator(tokens: readonly string[]): McpAuthenticator {
  if (tokens.length === 0) throw new Error('tokenAuthenticator needs at least one token.');
  const known = tokens.map((token) => ({ token, id: tokenId(token) }));
  return {
    required: true,
    authenticate(authorization) {
      const presented = bearerFrom(authorization);
      if (presented === undefined) return undefined;
      // Compare against every token without an early exit, so timing says nothing about which.
      let match: string | undefined;
      for (const { token, id } of known) {
        if (tokensEqual(presented, token)) match = id;
      }
      return match === undefined ? undefined : { tokenId: match };
    },
  };
}

/** `--no-auth`: every caller is the same anonymous principal. Loopback only (see below). */
export function noAuthAuthenticator(): McpAuthenticator {
  return { required: false, authenticate: () => ({ tokenId: 'anonymous' }) };
}

/** Refuses `--no-auth` unless the bridge listens on a loopback address only. */
export function assertNoAuthAllowed(host: string): void {
  if (!isLoopbackHost(host)) {
    throw new UsageError(
      `--no-auth is for local testing only and is refused with --host ${host}: anyone who can reach that address could drive the desktop. Bind to 127.0.0.1 (the default) or drop --no-auth and use the bearer token.`,
    );
  }
}
