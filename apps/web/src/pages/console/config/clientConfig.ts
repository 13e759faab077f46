// What an AI client needs to reach this bridge: the MCP endpoint, a client configuration to
// paste (Streamable HTTP with a bearer token), and the stdio alternative. With a real token
// (right after creating one) the texts carry it; otherwise a placeholder the person replaces.
import type { TokenView } from '@overlay-companion/protocol';

export const TOKEN_PLACEHOLDER = '<token>';
export const SERVER_NAME = 'overlay-companion';

/** The bridge's MCP endpoint on the origin this page was served from. */
export function mcpEndpointUrl(origin: string): string {
  return `${origin.replace(/\/+$/, '')}/mcp`;
}

/** `{"mcpServers": {"overlay-companion": {type: http, url, headers}}}`, pretty-printed. */
export function httpClientConfig(url: string, token: string = TOKEN_PLACEHOLDER): string {
  const config = {
    mcpServers: {
      [SERVER_NAME]: { type: 'http', url, headers: { Authorization: `Bearer ${token}` } },
    },
  };
  return JSON.stringify(config, null, 2);
}

/** The same for clients that only speak stdio: a local proxy to this bridge. */
export function stdioClientConfig(url: string, token: string = TOKEN_PLACEHOLDER): string {
  const config = {
    mcpServers: {
      [SERVER_NAME]: {
        command: 'npx',
        args: ['overlay-companion', 'stdio', '--url', url],
        env: { OC_MCP_TOKEN: token },
      },
    },
  };
  return JSON.stringify(config, null, 2);
}

/** A word for a POSIX shell: as is when plain, single-quoted otherwise. */
export function shellWord(text: string): string {
  if (/^[A-Za-z0-9_@%+=:,./-]+$/.test(text)) return text;
  return `'${text.replace(/'/g, `'\\''`)}'`;
}

/** The stdio proxy as one shell line, the token in OC_MCP_TOKEN (never on the command line). */
export function stdioCommand(url: string, token: string = TOKEN_PLACEHOLDER): string {
  return `OC_MCP_TOKEN=${shellWord(token)} npx overlay-companion stdio --url ${shellWord(url)}`;
}

export type TokenStatus = 'active' | 'expired' | 'revoked';

export function tokenStatus(token: TokenView, now: number): TokenStatus {
  if (token.revoked_at !== null) return 'revoked';
  if (token.expires_at !== null && token.expires_at <= now) return 'expired';
  return 'active';
}
