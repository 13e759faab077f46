// The MCP bearer token on disk and its comparison.
import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ConfigError } from '../errors.js';
import { MCP_TOKEN_FILE, bearerFrom, loadOrCreateMcpToken, tokensEqual } from './mcpToken.js';

describe('loadOrCreateMcpToken', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'oc-token-'));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('generates 32 random bytes as base64url on first start, stored with mode 0600', async () => {
    const dataDir = join(dir, 'data');
    const first = await loadOrCreateMcpToken({ dataDir });
    expect(first.source).toBe('generated');
    expect(first.token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(Buffer.from(first.token, 'base64url')).toHaveLength(32);
    const path = join(dataDir, MCP_TOKEN_FILE);
    expect((await stat(path)).mode & 0o777).toBe(0o600);
    expect((await readFile(path, 'utf8')).trim()).toBe(first.token);
  });

  it('reuses the stored token on the next start and tightens a loose file mode', async () => {
    const first = await loadOrCreateMcpToken({ dataDir: dir });
    await writeFile(join(dir, MCP_TOKEN_FILE), `${first.token}\n`, { mode: 0o644 });
    const { chmod } = await import('node:fs/promises');
    await chmod(join(dir, MCP_TOKEN_FILE), 0o644);
    const second = await loadOrCreateMcpToken({ dataDir: dir });
    expect(second).toMatchObject({ token: first.token, source: 'file' });
    expect((await stat(join(dir, MCP_TOKEN_FILE))).mode & 0o777).toBe(0o600);
  });

  it('prefers OC_MCP_TOKEN and writes nothing', async () => {
    const loaded = await loadOrCreateMcpToken({
      dataDir: dir,
      envToken: 'an-environment-token-123',
    });
    expect(loaded).toEqual({ token: 'an-environment-token-123', source: 'env' });
    await expect(stat(join(dir, MCP_TOKEN_FILE))).rejects.toThrow();
  });

  it('refuses a guessable OC_MCP_TOKEN', async () => {
    await expect(loadOrCreateMcpToken({ dataDir: dir, envToken: 'short' })).rejects.toBeInstanceOf(
      ConfigError,
    );
  });
});

describe('token checks', () => {
  it('compares equal and unequal tokens of any length', () => {
    expect(tokensEqual('abc', 'abc')).toBe(true);
    expect(tokensEqual('abc', 'abd')).toBe(false);
    expect(tokensEqual('abc', 'abcd')).toBe(false);
    expect(tokensEqual('', 'x')).toBe(false);
  });

  it('reads only well-formed bearer headers', () => {
    expect(bearerFrom('Bearer tok')).toBe('tok');
    expect(bearerFrom('bearer  tok ')).toBe('tok');
    expect(bearerFrom('Basic dXNlcg==')).toBeUndefined();
    expect(bearerFrom('Bearer')).toBeUndefined();
    expect(bearerFrom(undefined)).toBeUndefined();
  });
});
