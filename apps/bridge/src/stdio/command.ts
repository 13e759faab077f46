// `overlay-companion stdio`: its flags, where the token comes from (OC_MCP_TOKEN, else
// --token-file, else <data-dir>/mcp-token — the file `serve` writes), and the run itself.
// stdout belongs to the MCP client, so everything for the person goes to stderr.
import { readFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { UsageError } from '../errors.js';
import { MCP_TOKEN_FILE } from '../auth/mcpToken.js';
import { startStdioProxy, type StdioProxy } from './proxy.js';

export const DEFAULT_STDIO_URL = 'http://127.0.0.1:8080/mcp';

export interface StdioCommandOptions {
  url: string;
  /** Explicit --token-file; otherwise <dataDir>/mcp-token. */
  tokenFile: string | undefined;
  dataDir: string;
}

export function parseStdioArgs(args: readonly string[]): StdioCommandOptions | 'help' {
  let values: { url?: string; 'token-file'?: string; 'data-dir'?: string; help?: boolean };
  try {
    ({ values } = parseArgs({
      args: [...args],
      strict: true,
      allowPositionals: false,
      options: {
        url: { type: 'string' },
        'token-file': { type: 'string' },
        'data-dir': { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
    }));
  } catch (err) {
    throw new UsageError(err instanceof Error ? err.message : String(err));
  }
  if (values.help === true) return 'help';
  const url = values.url ?? DEFAULT_STDIO_URL;
  let parsed: URL | undefined;
  try {
    parsed = new URL(url);
  } catch {
    parsed = undefined;
  }
  if (parsed === undefined || (parsed.protocol !== 'http:' && parsed.protocol !== 'https:')) {
    throw new UsageError(
      `--url expects the bridge's MCP endpoint, e.g. ${DEFAULT_STDIO_URL}, got "${url}".`,
    );
  }
  return { url, tokenFile: values['token-file'], dataDir: values['data-dir'] ?? './.data' };
}

export interface ResolvedToken {
  token: string | undefined;
  /** Where it came from, for the start line on stderr (never the token itself). */
  from: string;
}

export async function resolveToken(
  options: StdioCommandOptions,
  env: NodeJS.ProcessEnv,
): Promise<ResolvedToken> {
  const fromEnv = env.OC_MCP_TOKEN?.trim();
  if (fromEnv !== undefined && fromEnv !== '') return { token: fromEnv, from: 'OC_MCP_TOKEN' };
  const path = resolve(options.tokenFile ?? join(options.dataDir, MCP_TOKEN_FILE));
  try {
    const token = (await readFile(path, 'utf8')).trim();
    if (token !== '') return { token, from: path };
  } catch (err) {
    // An explicit --token-file that cannot be read is a mistake worth stopping for; the
    // default file may legitimately be missing (a bridge started with --no-auth).
    if (options.tokenFile !== undefined) {
      throw new UsageError(
        `--token-file ${path} cannot be read (${(err as NodeJS.ErrnoException).code ?? String(err)}). Point it at the bridge's mcp-token file, or set OC_MCP_TOKEN.`,
      );
    }
  }
  return { token: undefined, from: `nowhere (no OC_MCP_TOKEN, no ${path})` };
}

export async function runStdio(
  options: StdioCommandOptions,
  env: NodeJS.ProcessEnv,
  warn: (line: string) => void,
): Promise<StdioProxy> {
  const { token, from } = await resolveToken(options, env);
  warn(
    token === undefined
      ? `Forwarding MCP over stdio to ${options.url} without a token (found ${from}); this works only with a bridge started with --no-auth.`
      : `Forwarding MCP over stdio to ${options.url} (token from ${from}).`,
  );
  return startStdioProxy({ url: options.url, token, warn });
}
