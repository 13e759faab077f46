// The text printed at start so the person can paste a working MCP client configuration: the
// /mcp URL and the Authorization header, in the common `mcpServers` JSON shape used by MCP
// clients for Streamable HTTP servers.

export interface ClientConfigOptions {
  /** The /mcp endpoint URL, e.g. http://127.0.0.1:8080/mcp. */
  mcpUrl: string;
  /** Undefined under --no-auth. */
  token: string | undefined;
  /** Where the token is stored, to tell the person where to find it later. */
  tokenPath?: string | undefined;
}

export function clientConfigJson(options: ClientConfigOptions): string {
  const server: Record<string, unknown> = { type: 'http', url: options.mcpUrl };
  if (options.token !== undefined) {
    server.headers = { Authorization: `Bearer ${options.token}` };
  }
  return JSON.stringify({ mcpServers: { 'overlay-companion': server } }, null, 2);
}

/** The whole block the CLI prints to stdout after the bridge starts listening. */
export function clientConfigBanner(options: ClientConfigOptions): string {
  const lines = [
    `MCP endpoint: ${options.mcpUrl} (Streamable HTTP)`,
    options.token === undefined
      ? 'Authentication is OFF (--no-auth, loopback only).'
      : `Bearer token${options.tokenPath === undefined ? ' from OC_MCP_TOKEN' : ` stored in ${options.tokenPath}`}.`,
    'Client configuration (paste into your MCP client):',
    clientConfigJson(options),
  ];
  return `${lines.join('\n')}\n`;
}
