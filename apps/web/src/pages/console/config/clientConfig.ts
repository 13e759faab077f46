// How each AI client reaches this bridge: the one definition of every client configuration the
// /config page shows, the README repeats (clientConfig.readme.test.ts keeps them equal) and
// `npm start` prints (scripts/start.mjs loads this file). Streamable HTTP with the bearer token
// for clients that speak it; the `overlay-companion stdio` forwarder for stdio-only clients
// (Claude Desktop's config file takes only stdio servers; its remote "connectors" are reached
// from Anthropic's cloud and take no bearer token). With a real token (right after creating one)
// the texts carry it; otherwise a placeholder the person replaces.
import type { TokenView } from '@overlay-companion/protocol';

export const TOKEN_PLACEHOLDER = '<token>';
/** The forwarder on the AI client's machine: a built checkout of this repository. */
export const CLI_PLACEHOLDER = '<overlay-companion folder>/apps/bridge/dist/cli/main.js';
export const SERVER_NAME = 'overlay-companion';
/** VS Code asks for the token once and keeps it in its secret storage, never in the file. */
export const VSCODE_TOKEN_INPUT = 'overlay-companion-token';

/** The bridge's MCP endpoint on the origin this page was served from. */
export function mcpEndpointUrl(origin: string): string {
  return `${origin.replace(/\/+$/, '')}/mcp`;
}

const json = (value: unknown): string => JSON.stringify(value, null, 2);
const bearer = (token: string): string => `Bearer ${token}`;

/** `{"mcpServers": {"overlay-companion": {type: http, url, headers}}}` (.mcp.json and most clients). */
export function httpClientConfig(url: string, token: string = TOKEN_PLACEHOLDER): string {
  return json({
    mcpServers: {
      [SERVER_NAME]: { type: 'http', url, headers: { Authorization: bearer(token) } },
    },
  });
}

/** Claude Code: one command that adds the server (Streamable HTTP with the header). */
export function claudeCodeCommand(url: string, token: string = TOKEN_PLACEHOLDER): string {
  return `claude mcp add --transport http ${SERVER_NAME} ${shellWord(url)} --header ${shellWord(`Authorization: ${bearer(token)}`)}`;
}

/** Cursor's mcp.json (~/.cursor/mcp.json or the project's .cursor/mcp.json). */
export function cursorConfig(url: string, token: string = TOKEN_PLACEHOLDER): string {
  return json({
    mcpServers: { [SERVER_NAME]: { url, headers: { Authorization: bearer(token) } } },
  });
}

/** VS Code's .vscode/mcp.json: "servers" with type http; the token is asked for, not stored. */
export function vscodeConfig(url: string): string {
  return json({
    inputs: [
      {
        type: 'promptString',
        id: VSCODE_TOKEN_INPUT,
        description: 'Overlay Companion API token (from its /config page)',
        password: true,
      },
    ],
    servers: {
      [SERVER_NAME]: {
        type: 'http',
        url,
        headers: { Authorization: bearer(`\${input:${VSCODE_TOKEN_INPUT}}`) },
      },
    },
  });
}

/** Cherry Studio: Settings → MCP → Add → Import from JSON (Streamable HTTP). */
export function cherryStudioConfig(url: string, token: string = TOKEN_PLACEHOLDER): string {
  return json({
    mcpServers: {
      [SERVER_NAME]: {
        name: 'Overlay Companion',
        type: 'streamableHttp',
        baseUrl: url,
        headers: { Authorization: bearer(token) },
      },
    },
  });
}

/** Stdio-only clients (Claude Desktop's claude_desktop_config.json): the local forwarder. */
export function stdioClientConfig(
  url: string,
  token: string = TOKEN_PLACEHOLDER,
  cli: string = CLI_PLACEHOLDER,
): string {
  return json({
    mcpServers: {
      [SERVER_NAME]: {
        command: 'node',
        args: [cli, 'stdio', '--url', url],
        env: { OC_MCP_TOKEN: token },
      },
    },
  });
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

export type ClientSetupId =
  | 'claude-code'
  | 'claude-desktop'
  | 'cursor'
  | 'vscode'
  | 'cherry-studio'
  | 'mcp-json'
  | 'stdio-command';

export interface ClientSetup {
  id: ClientSetupId;
  /** The client, as a heading. */
  client: string;
  /** Where the text goes, one sentence. */
  where: string;
  /** What the copyable text is, for its accessible name. */
  label: string;
  language: 'json' | 'sh';
  transport: 'http' | 'stdio';
  text: string;
}

/** Every client's setup, in the order the page and the README show them. */
export function clientSetups(
  url: string,
  token: string = TOKEN_PLACEHOLDER,
  cli: string = CLI_PLACEHOLDER,
): ClientSetup[] {
  return [
    {
      id: 'claude-code',
      client: 'Claude Code',
      where: 'Run in a terminal (add --scope user to have it in every project).',
      label: 'Claude Code command',
      language: 'sh',
      transport: 'http',
      text: claudeCodeCommand(url, token),
    },
    {
      id: 'claude-desktop',
      client: 'Claude Desktop',
      where:
        'Its claude_desktop_config.json (Settings → Developer → Edit Config) takes only local stdio servers, so it runs the forwarder from a built checkout of Overlay Companion on that machine (npm start or npm run build there); restart Claude Desktop afterwards.',
      label: 'Claude Desktop configuration',
      language: 'json',
      transport: 'stdio',
      text: stdioClientConfig(url, token, cli),
    },
    {
      id: 'cursor',
      client: 'Cursor',
      where: 'Put this in ~/.cursor/mcp.json (or .cursor/mcp.json in a project).',
      label: 'Cursor configuration',
      language: 'json',
      transport: 'http',
      text: cursorConfig(url, token),
    },
    {
      id: 'vscode',
      client: 'VS Code',
      where:
        'Put this in .vscode/mcp.json (or MCP: Open User Configuration); VS Code asks for the token when it starts the server and keeps it out of the file.',
      label: 'VS Code configuration',
      language: 'json',
      transport: 'http',
      text: vscodeConfig(url),
    },
    {
      id: 'cherry-studio',
      client: 'Cherry Studio',
      where: 'Settings → MCP Servers → Add → Import from JSON.',
      label: 'Cherry Studio configuration',
      language: 'json',
      transport: 'http',
      text: cherryStudioConfig(url, token),
    },
    {
      id: 'mcp-json',
      client: 'Other clients',
      where:
        'Most clients that speak Streamable HTTP take this shape (it is also Claude Code’s .mcp.json).',
      label: 'Client configuration',
      language: 'json',
      transport: 'http',
      text: httpClientConfig(url, token),
    },
    {
      id: 'stdio-command',
      client: 'Stdio forwarder',
      where:
        'For other stdio-only clients: run in the Overlay Companion folder; it opens a new session by itself when the bridge restarts.',
      label: 'Stdio command',
      language: 'sh',
      transport: 'stdio',
      text: stdioCommand(url, token),
    },
  ];
}

export type TokenStatus = 'active' | 'expired' | 'revoked';

export function tokenStatus(token: TokenView, now: number): TokenStatus {
  if (token.revoked_at !== null) return 'revoked';
  if (token.expires_at !== null && token.expires_at <= now) return 'expired';
  return 'active';
}
