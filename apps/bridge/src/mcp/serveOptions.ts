// The control plane's part of `overlay-companion serve`: its flags (--mode, --no-auth) and
// environment (OC_MCP_TOKEN, OC_PUBLIC_URL), turned into validated options, and the MCP
// authenticator built from them (the token loaded or generated in the data dir). Kept here so
// the CLI files only spread these in.
import { MODES, type Mode } from '@overlay-companion/protocol';
import { UsageError } from '../errors.js';
import {
  assertNoAuthAllowed,
  noAuthAuthenticator,
  tokenAuthenticator,
  type McpAuthenticator,
} from '../auth/mcpAuth.js';
import { MIN_TOKEN_LENGTH, loadOrCreateMcpToken, type LoadedToken } from '../auth/mcpToken.js';

/** parseArgs option declarations to merge into serve's. */
export const CONTROL_PLANE_FLAGS = {
  mode: { type: 'string' },
  'no-auth': { type: 'boolean' },
} as const;

export interface ControlPlaneServeOptions {
  /** Starting mode; undefined means the default (assist). */
  mode?: Mode | undefined;
  noAuth?: boolean | undefined;
  publicUrl?: string | undefined;
  /** OC_MCP_TOKEN. */
  mcpToken?: string | undefined;
}

export function parseControlPlaneFlags(
  values: { mode?: string | undefined; 'no-auth'?: boolean | undefined },
  host: string,
  env: NodeJS.ProcessEnv,
): ControlPlaneServeOptions {
  const mode = values.mode;
  if (mode !== undefined && !(MODES as readonly string[]).includes(mode)) {
    throw new UsageError(`--mode expects one of ${MODES.join(', ')}, got "${mode}".`);
  }
  if (values['no-auth'] === true) assertNoAuthAllowed(host);
  const envToken = env.OC_MCP_TOKEN?.trim();
  if (envToken !== undefined && envToken !== '' && envToken.length < MIN_TOKEN_LENGTH) {
    throw new UsageError(
      `OC_MCP_TOKEN is too short (${envToken.length} characters); use at least ${MIN_TOKEN_LENGTH}, or unset it to let the bridge generate one.`,
    );
  }
  const publicUrl = env.OC_PUBLIC_URL?.trim() || undefined;
  if (publicUrl !== undefined) {
    let url: URL | undefined;
    try {
      url = new URL(publicUrl);
    } catch {
      url = undefined;
    }
    if (url === undefined || (url.protocol !== 'http:' && url.protocol !== 'https:')) {
      throw new UsageError(
        `OC_PUBLIC_URL must be an http(s) URL such as https://desk.example.org/, got "${publicUrl}".`,
      );
    }
  }
  return {
    // Only present when given, so callers comparing option objects see no new keys by default.
    ...(mode === undefined ? {} : { mode: mode as Mode }),
    ...(values['no-auth'] === true ? { noAuth: true } : {}),
    ...(publicUrl === undefined ? {} : { publicUrl }),
    ...(env.OC_MCP_TOKEN === undefined || env.OC_MCP_TOKEN === ''
      ? {}
      : { mcpToken: env.OC_MCP_TOKEN }),
  };
}

export interface PreparedMcpAuth {
  auth: McpAuthenticator;
  /** Undefined under --no-auth. */
  token: LoadedToken | undefined;
}

export async function prepareMcpAuth(
  options: ControlPlaneServeOptions,
  dataDir: string,
): Promise<PreparedMcpAuth> {
  if (options.noAuth === true) return { auth: noAuthAuthenticator(), token: undefined };
  const token = await loadOrCreateMcpToken({ dataDir, envToken: options.mcpToken });
  return { auth: tokenAuthenticator([token.token]), token };
}
