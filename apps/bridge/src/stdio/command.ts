// `overlay-companion stdio`: its flags, where the token comes from (OC_MCP_TOKEN, else
// --token-file: a token the person created on the bridge's /config page), and the run itself.
// stdout belongs to the MCP client, so everything for the person goes to stderr.
import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { UsageError } from '../errors.js';
import { startStdioProxy, type StdioProxy } from './proxy.js';

export const DEFAULT_STDIO_URL = 'http://127.0.0.1:8080/mcp';

export interface StdioCommandOptions {
  url: string;
  /** --token-file: a file holding the token (OC_MCP_TOKEN wins). */
  tokenFile: string | undefined;
}

export function parseStdioArgs(args: readonly string[]): StdioCommandOptions | 'help' {
  let values: { url?: string; 'token-file'?: string; help?: boolean };
  try {
    ({ values } = parseArgs({
      args: [...args],
      strict: true,
      allowPositionals: false,
      options: {
        url: { type: 'string' },
        'token-file': { type: 'string' },
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
  return { url, tokenFile: values['token-file'] };
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
  if (options.tokenFile === undefined) {
    throw new UsageError(
      `No token: create one on the bridge's /config page (signed in), then set OC_MCP_TOKEN to it or pass --token-file FILE.`,
    );
  }
  const path = resolve(options.tokenFile);
  let token: string;
  try {
    token = (await readFile(path, 'utf8')).trim();
  } catch (err) {
    throw new UsageError(
      `--token-file ${path} cannot be read (${(err as NodeJS.ErrnoException).code ?? String(err)}). Point it at a file holding a token from the bridge's /config page, or set OC_MCP_TOKEN.`,
    );
  }
  if (token === '') {
    throw new UsageError(
      `--token-file ${path} is empty; put a token from the bridge's /config page in it.`,
    );
  }
  return { token, from: path };
}

export async function runStdio(
  options: StdioCommandOptions,
  env: NodeJS.ProcessEnv,
  warn: (line: string) => void,
): Promise<StdioProxy> {
  const { token, from } = await resolveToken(options, env);
  warn(`Forwarding MCP over stdio to ${options.url} (token from ${from}).`);
  return startStdioProxy({ url: options.url, token, warn });
}
