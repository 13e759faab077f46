// serve's control-plane flags: --mode, --no-auth (refused off loopback, exit 2 from the real
// command), OC_MCP_TOKEN / OC_PUBLIC_URL checks, and the client configuration banner.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parseCommandLine } from '../cli/args.js';
import { UsageError } from '../errors.js';
import { mcpBanner } from './serveBanner.js';
import { startTestBridge } from './testing/fixtures.js';

const parse = (line: string, env: NodeJS.ProcessEnv = {}) =>
  parseCommandLine(line.split(' ').filter(Boolean), env);

describe('serve control-plane flags', () => {
  it('adds nothing when no flag is given, and --mode / --no-auth when given', () => {
    const plain = parse('serve');
    expect(plain.command === 'serve' && plain.options.mode).toBeUndefined();
    const given = parse('serve --mode autopilot --no-auth');
    expect(given).toMatchObject({ command: 'serve', options: { mode: 'autopilot', noAuth: true } });
  });

  it('refuses an unknown mode, --no-auth off loopback, a short token and a non-http public URL', () => {
    expect(() => parse('serve --mode wild')).toThrow(/--mode expects one of passive, assist/);
    expect(() => parse('serve --no-auth --host 0.0.0.0')).toThrow(UsageError);
    expect(() => parse('serve', { OC_MCP_TOKEN: 'short' })).toThrow(/OC_MCP_TOKEN is too short/);
    expect(() => parse('serve', { OC_PUBLIC_URL: 'ftp://x' })).toThrow(/OC_PUBLIC_URL/);
    expect(parse('serve', { OC_PUBLIC_URL: 'https://desk.example.org/' })).toMatchObject({
      options: { publicUrl: 'https://desk.example.org/' },
    });
  });

  it('makes the real command exit 2 with a clear error for --no-auth on a non-loopback host', async () => {
    const main = fileURLToPath(new URL('../cli/main.ts', import.meta.url));
    const child = spawn(
      process.execPath,
      [
        '--import',
        'tsx',
        '--conditions=overlay-source',
        main,
        'serve',
        '--no-auth',
        '--host',
        '0.0.0.0',
      ],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
    expect(code).toBe(2);
    expect(stderr).toMatch(
      /--no-auth is for local testing only and is refused with --host 0\.0\.0\.0/,
    );
  });
});

describe('MCP banner', () => {
  it('prints the endpoint, where the token is, and a client config with the Authorization header', async () => {
    const bridge = await startTestBridge();
    try {
      const text = mcpBanner({
        bridge,
        mcpToken: { token: 'tok-123', source: 'generated', path: '/data/mcp-token' },
      });
      expect(text).toContain(`MCP endpoint: ${bridge.mcpUrl}`);
      expect(text).toContain('/data/mcp-token');
      const json = JSON.parse(text.slice(text.indexOf('{'))) as {
        mcpServers: Record<string, { url: string; headers: Record<string, string> }>;
      };
      expect(json.mcpServers['overlay-companion']).toEqual({
        type: 'http',
        url: bridge.mcpUrl,
        headers: { Authorization: 'Bearer tok-123' },
      });
    } finally {
      await bridge.close();
    }
  });
});
