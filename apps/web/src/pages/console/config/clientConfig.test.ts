import type { TokenView } from '@overlay-companion/protocol';
import { describe, expect, it } from 'vitest';
import {
  httpClientConfig,
  mcpEndpointUrl,
  shellWord,
  stdioClientConfig,
  stdioCommand,
  tokenStatus,
} from './clientConfig.js';

const url = mcpEndpointUrl('https://desk.example:8443');
const token = `oc_${'A'.repeat(43)}`;

describe('client configuration', () => {
  it('points at /mcp on this origin', () => {
    expect(url).toBe('https://desk.example:8443/mcp');
    expect(mcpEndpointUrl('http://127.0.0.1:8080/')).toBe('http://127.0.0.1:8080/mcp');
  });

  it('builds the Streamable HTTP configuration with the bearer token', () => {
    expect(JSON.parse(httpClientConfig(url, token))).toEqual({
      mcpServers: {
        'overlay-companion': {
          type: 'http',
          url: 'https://desk.example:8443/mcp',
          headers: { Authorization: `Bearer ${token}` },
        },
      },
    });
    expect(httpClientConfig(url)).toContain('"Authorization": "Bearer <token>"');
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
          command: 'npx',
          args: ['overlay-companion', 'stdio', '--url', url],
          env: { OC_MCP_TOKEN: token },
        },
      },
    });
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
  };
  it('is revoked, expired or active', () => {
    expect(tokenStatus(base, 100)).toBe('active');
    expect(tokenStatus({ ...base, expires_at: 200 }, 100)).toBe('active');
    expect(tokenStatus({ ...base, expires_at: 100 }, 100)).toBe('expired');
    expect(tokenStatus({ ...base, expires_at: 50, revoked_at: 10 }, 100)).toBe('revoked');
  });
});
