// The MCP bearer token: taken from OC_MCP_TOKEN, or generated once (32 random bytes, base64url)
// and kept in the data dir with mode 0600 so the person's client config survives restarts.
// Also owns the constant-time comparison every token check goes through.
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { chmod, mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { ConfigError } from '../errors.js';

/** File (inside the data dir) that holds the generated token. */
export const MCP_TOKEN_FILE = 'mcp-token';

/** Shortest token we accept from the environment: anything shorter is guessable. */
export const MIN_TOKEN_LENGTH = 16;

export interface LoadedToken {
  token: string;
  /** Where it came from: the environment, the data dir, or generated just now. */
  source: 'env' | 'file' | 'generated';
  /** The file that holds it (absent when it came from the environment). */
  path?: string;
}

export function generateToken(): string {
  return randomBytes(32).toString('base64url');
}

/**
 * Returns the token to require on /mcp. `envToken` (OC_MCP_TOKEN) wins; otherwise the token in
 * `<dataDir>/mcp-token`, created on first start.
 */
export async function loadOrCreateMcpToken(options: {
  dataDir: string;
  envToken?: string | undefined;
}): Promise<LoadedToken> {
  const fromEnv = options.envToken?.trim();
  if (fromEnv !== undefined && fromEnv !== '') {
    if (fromEnv.length < MIN_TOKEN_LENGTH) {
      throw new ConfigError(
        `OC_MCP_TOKEN is too short (${fromEnv.length} characters); use at least ${MIN_TOKEN_LENGTH}, or unset it to let the bridge generate one.`,
      );
    }
    return { token: fromEnv, source: 'env' };
  }
  const path = join(options.dataDir, MCP_TOKEN_FILE);
  let existing: string | undefined;
  try {
    existing = (await readFile(path, 'utf8')).trim();
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') {
      throw new ConfigError(`Cannot read the MCP token file ${path}: ${(err as Error).message}`);
    }
  }
  if (existing !== undefined && existing.length >= MIN_TOKEN_LENGTH) {
    // Tighten permissions in case the file was copied around with a looser mode.
    await chmod(path, 0o600);
    return { token: existing, source: 'file', path };
  }
  const token = generateToken();
  await mkdir(options.dataDir, { recursive: true, mode: 0o700 });
  // `mode` only applies when the file is created; chmod covers an existing (short) file.
  await writeFile(path, `${token}\n`, { mode: 0o600 });
  await chmod(path, 0o600);
  return { token, source: 'generated', path };
}

/**
 * Compares two secrets in constant time. Both are hashed first so their lengths do not leak
 * through an early return (timingSafeEqual needs equal-length inputs).
 */
export function tokensEqual(presented: string, expected: string): boolean {
  const a = createHash('sha256').update(presented).digest();
  const b = createHash('sha256').update(expected).digest();
  return timingSafeEqual(a, b);
}

/** Reads `Authorization: Bearer <token>`; undefined when missing or not a bearer header. */
export function bearerFrom(header: string | undefined): string | undefined {
  if (header === undefined) return undefined;
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
  return match?.[1];
}
