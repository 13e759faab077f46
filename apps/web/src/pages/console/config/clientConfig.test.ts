import type { TokenView } from '@overlay-companion/protocol';
import { describe, expect, it } from 'vitest';
import {
  CLI_PLACEHOLDER,
  claudeCodeCommand,
  clientSetups,
  cherryStudioConfig,
  cursorConfig,
  httpClientConfig,
  mcpEndpointUrl,
  shellWord,
  stdioClientConfig,
  stdioCommand,
  tokenStatus,
  vscodeConfig,
} from './clientConfig.js';

const url = mcpEndpointUrl('https://desk.example:8443');
const token = `oc_${'A'.repeat(43)}`;
const authorization = { Authorization: `Bearer ${token}` };

describe('client configuration', () => {
  it('points at /mcp on this origin', () => {
    expect(url).toBe('https://desk.example:8443/mcp');
    expect(mcpEndpointUrl('http://127.0.0.1:8080/')).toBe('http://127.0.0.1:8080/mcp');
  });

  it('builds the Streamable HTTP configurations with the bearer token', () => {
    expect(JSON.parse(httpClientConfig(url, token))).toEqual({
      mcpServers: { 'overlay-companion': { type: 'http', url, headers: authorization } },
    });
    expect(httpClientConfig(url)).toContain('"Authorization": "Bearer <token>"');
    expect(JSON.parse(cursorConfig(url, token))).toEqual({
      mcpServers: { 'overlay-companion': { url, headers: authorization } },
    });
    expect(JSON.parse(cherryStudioConfig(url, token))).toEqual({
      mcpServers: {
        'overlay-companion': {
          name: 'Overlay Companion',
          type: 'streamableHttp',
          baseUrl: url,
          headers: authorization,
        },
      },
    });
    expect(claudeCodeCommand(url, token)).toBe(
      `claude mcp add --transport http overlay-companion ${url} --header 'Authorization: Bearer ${token}'`,
    );
  });

  it('keeps the token out of VS Code’s workspace file (an input it prompts for)', () => {
    const config = JSON.parse(vscodeConfig(url)) as {
      inputs: Array<{ id: string; password: boolean }>;
      servers: Record<string, { type: string; url: string; headers: Record<string, string> }>;
    };
    expect(config.servers['overlay-companion']).toEqual({
      type: 'http',
      url,
      headers: { Authorization: 'Bearer ${input:overlay-companion-token}' },
    });
    expect(config.inputs).toEqual([
      expect.objectContaining({ id: 'overlay-companion-token', password: true }),
    ]);
    const filled = clientSetups(url, token).find((setup) => setup.id === 'vscode');
    expect(filled?.text).not.toContain(token);
  });

  it('builds the stdio alternative with the token in OC_MCP_TOKEN', () => {
    expect(stdioCommand(url, token)).toBe(
      `OC_MCP_TOKEN=${token} npx overlay-companion stdio --url https://desk.example:8443/mcp`,
    );
    // The placeholder must not turn into a shell redirection when pasted unchanged.
    expect(stdioCommand(url)).toMatch(/^OC_MCP_TOKEN='<token>' npx /);
    expect(JSON.parse(stdioClientConfig(url, token))).toEqual({
      mcpServers: {
        'overlay-companion': {
          command: 'node',
          args: [CLI_PLACEHOLDER, 'stdio', '--url', url],
          env: { OC_MCP_TOKEN: token },
        },
      },
    });
  });

  it('lists every client once, the token in each that carries one', () => {
    const setups = clientSetups(url, token);
    expect(setups.map((setup) => setup.id)).toEqual([
      'claude-code',
      'claude-desktop',
      'cursor',
      'vscode',
      'cherry-studio',
      'mcp-json',
      'stdio-command',
    ]);
    for (const setup of setups) {
      if (setup.id !== 'vscode') expect(setup.text, setup.id).toContain(token);
      expect(setup.text, setup.id).toContain(url);
    }
  });

  it('quotes shell words that need it', () => {
    expect(shellWord('plain-word_1.2')).toBe('plain-word_1.2');
    expect(shellWord("it's $HOME")).toBe(`'it'\\''s $HOME'`);
  });
});

describe('tokenStatus', () => {
  const base: TokenView = {
    id: 't1',
    name: 'laptop',
    created_at: 0,
    expires_at: null,
    last_used_at: null,
    revoked_at: null,
    hint: 'oc_AbC',
    desktops: null,
  };
  it('is revoked, expired or active', () => {
    expect(tokenStatus(base, 100)).toBe('active');
    expect(tokenStatus({ ...base, expires_at: 200 }, 100)).toBe('active');
    expect(tokenStatus({ ...base, expires_at: 100 }, 100)).toBe('expired');
    expect(tokenStatus({ ...base, expires_at: 50, revoked_at: 10 }, 100)).toBe('revoked');
  });
});
