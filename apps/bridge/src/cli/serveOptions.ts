// The sign-in and desktop-control part of `overlay-companion serve`: its flags (--mode) and
// environment (OC_MCP_TOKEN, OC_PUBLIC_URL, OC_ADMIN_USER/OC_ADMIN_PASSWORD, DATABASE_URL,
// OC_TRUSTED_PROXIES, session and sign-in limits, OpenID Connect, OC_NATS_URL, the RDP drive
// quota OC_RDP_DRIVE_QUOTA, the desktop HOME quota OC_DESKTOP_HOME_QUOTA), turned into validated options
// with errors that name the variable and the fix. Kept here so the CLI files only spread it in.
import { MIN_PASSWORD_LENGTH, MODES, Username, type Mode } from '@overlay-companion/protocol';
import { MIN_ENV_TOKEN_LENGTH } from '../auth/apiTokens.js';
import { trustedProxyList } from '../auth/clientAddress.js';
import { oidcConfigFromEnv, type OidcConfig } from '../auth/oidc.js';
import { DEFAULT_THROTTLE, type ThrottleLimits } from '../auth/signInThrottle.js';
import { DEFAULT_SESSION_LIMITS, type SessionLimits } from '../auth/webSessions.js';
import {
  DEFAULT_DESKTOP_HOME_QUOTA_BYTES,
  MIN_DESKTOP_HOME_QUOTA_BYTES,
} from '../desktops/homeQuota.js';
import { ConfigError, UsageError } from '../errors.js';
import { DEFAULT_RDP_DRIVE_QUOTA_BYTES } from '../files/rdpDrive.js';
import { readSiteConfig, type SiteConfig } from '../site/siteConfig.js';

/** parseArgs option declarations to merge into serve's. */
export const CONTROL_PLANE_FLAGS = {
  mode: { type: 'string' },
  'no-auth': { type: 'boolean' },
} as const;

export interface SignInServeOptions {
  /** Starting mode; undefined means the default (assist). */
  mode?: Mode | undefined;
  publicUrl?: string | undefined;
  /** OC_MCP_TOKEN: acts for the first admin (scripted setups). */
  mcpToken?: string | undefined;
  /** OC_ADMIN_USER + OC_ADMIN_PASSWORD: the admin to create when none exists yet. */
  admin?: { username: string; password: string } | undefined;
  /** DATABASE_URL: PostgreSQL instead of the SQLite file in the data dir. */
  databaseUrl?: string | undefined;
  trustedProxies?: string[] | undefined;
  sessionLimits?: SessionLimits | undefined;
  throttle?: ThrottleLimits | undefined;
  oidc?: OidcConfig | undefined;
  /** OC_NATS_URL (+ OC_NATS_TOKEN): the site of several bridges this one joins. */
  site?: SiteConfig | undefined;
  /**
   * OC_RDP_DRIVE_QUOTA: bytes the bridge lets into one RDP desktop's drive folder (default
   * DEFAULT_RDP_DRIVE_QUOTA_BYTES).
   */
  rdpDriveQuotaBytes?: number | undefined;
  /**
   * OC_DESKTOP_HOME_QUOTA: bytes one local desktop's HOME may hold (default
   * DEFAULT_DESKTOP_HOME_QUOTA_BYTES; desktops/homeQuota.ts).
   */
  desktopHomeQuotaBytes?: number | undefined;
}

/** The smallest drive quota taken: a smaller number is likely a unit mistaken (GiB for bytes). */
const MIN_RDP_DRIVE_QUOTA_BYTES = 1024 * 1024;

/** A byte count from `name` (a whole number, at least `min`), or undefined when unset. */
function byteQuota(
  env: NodeJS.ProcessEnv,
  name: string,
  what: string,
  limits: { min: number; minWords: string; byDefault: number },
): number | undefined {
  const text = env[name]?.trim();
  if (text === undefined || text === '') return undefined;
  const value = /^\d+$/.test(text) ? Number(text) : NaN;
  if (!Number.isSafeInteger(value) || value < limits.min)
    throw new UsageError(
      `${name} is the bytes ${what}, a whole number of at least ${limits.min} (${limits.minWords}; the default is ${limits.byDefault}, 2 GiB; 10737418240 is 10 GiB), got "${text}".`,
    );
  return value;
}

const rdpDriveQuota = (env: NodeJS.ProcessEnv): number | undefined =>
  byteQuota(env, 'OC_RDP_DRIVE_QUOTA', "one RDP desktop's drive folder may hold", {
    min: MIN_RDP_DRIVE_QUOTA_BYTES,
    minWords: '1 MiB',
    byDefault: DEFAULT_RDP_DRIVE_QUOTA_BYTES,
  });

const desktopHomeQuota = (env: NodeJS.ProcessEnv): number | undefined =>
  byteQuota(env, 'OC_DESKTOP_HOME_QUOTA', "one local desktop's home folder may hold", {
    min: MIN_DESKTOP_HOME_QUOTA_BYTES,
    minWords: '16 MiB',
    byDefault: DEFAULT_DESKTOP_HOME_QUOTA_BYTES,
  });

function positiveNumber(env: NodeJS.ProcessEnv, name: string): number | undefined {
  const text = env[name]?.trim();
  if (text === undefined || text === '') return undefined;
  const value = Number(text);
  if (!Number.isFinite(value) || value <= 0) {
    throw new UsageError(`${name} must be a positive number, got "${text}".`);
  }
  return value;
}

export function parseSignInFlags(
  values: { mode?: string | undefined; 'no-auth'?: boolean | undefined },
  env: NodeJS.ProcessEnv,
): SignInServeOptions {
  const mode = values.mode;
  if (mode !== undefined && !(MODES as readonly string[]).includes(mode)) {
    throw new UsageError(`--mode expects one of ${MODES.join(', ')}, got "${mode}".`);
  }
  if (values['no-auth'] === true) {
    throw new UsageError(
      '--no-auth was removed: the desktop is reached only by signed-in people and the AI clients they made tokens for. For scripts, set OC_ADMIN_USER and OC_ADMIN_PASSWORD (the admin) and OC_MCP_TOKEN (a token that acts for the admin).',
    );
  }
  const envToken = env.OC_MCP_TOKEN?.trim();
  if (envToken !== undefined && envToken !== '' && envToken.length < MIN_ENV_TOKEN_LENGTH) {
    throw new UsageError(
      `OC_MCP_TOKEN is too short (${envToken.length} characters); use at least ${MIN_ENV_TOKEN_LENGTH} random characters, or unset it and create tokens on the /config page.`,
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
  const adminUser = env.OC_ADMIN_USER?.trim() || undefined;
  const adminPassword = env.OC_ADMIN_PASSWORD || undefined;
  if ((adminUser === undefined) !== (adminPassword === undefined)) {
    throw new UsageError('Set both OC_ADMIN_USER and OC_ADMIN_PASSWORD, or neither.');
  }
  if (adminUser !== undefined && !Username.safeParse(adminUser).success) {
    throw new UsageError(
      'OC_ADMIN_USER may contain only letters, digits and . _ @ - (at most 64).',
    );
  }
  if (adminPassword !== undefined && adminPassword.length < MIN_PASSWORD_LENGTH) {
    throw new UsageError(`OC_ADMIN_PASSWORD must be at least ${MIN_PASSWORD_LENGTH} characters.`);
  }
  const databaseUrl = env.DATABASE_URL?.trim() || undefined;
  if (databaseUrl !== undefined && !/^postgres(ql)?:\/\//.test(databaseUrl)) {
    throw new UsageError(
      'DATABASE_URL must be a PostgreSQL URL such as postgres://user@host:5432/db.',
    );
  }
  const idleMinutes = positiveNumber(env, 'OC_SESSION_IDLE_MINUTES');
  const maxHours = positiveNumber(env, 'OC_SESSION_MAX_HOURS');
  const maxFailures = positiveNumber(env, 'OC_SIGNIN_MAX_FAILURES');
  const banSeconds = positiveNumber(env, 'OC_SIGNIN_BAN_SECONDS');
  let oidc: OidcConfig | undefined;
  let site: SiteConfig | undefined;
  try {
    oidc = oidcConfigFromEnv(env);
    site = readSiteConfig(env);
  } catch (err) {
    if (err instanceof ConfigError) throw new UsageError(err.message);
    throw err;
  }
  const rdpDriveQuotaBytes = rdpDriveQuota(env);
  const desktopHomeQuotaBytes = desktopHomeQuota(env);
  const proxies = env.OC_TRUSTED_PROXIES?.split(',')
    .map((p) => p.trim())
    .filter(Boolean);
  if (proxies !== undefined) {
    try {
      trustedProxyList(proxies);
    } catch (err) {
      throw new UsageError(
        `OC_TRUSTED_PROXIES lists addresses or CIDR ranges separated by commas (e.g. 10.89.10.0/24): ${err instanceof Error ? err.message : String(err)}.`,
      );
    }
  }
  return {
    // Only present when given, so callers comparing option objects see no new keys by default.
    ...(mode === undefined ? {} : { mode: mode as Mode }),
    ...(publicUrl === undefined ? {} : { publicUrl }),
    ...(envToken === undefined || envToken === '' ? {} : { mcpToken: envToken }),
    ...(adminUser === undefined || adminPassword === undefined
      ? {}
      : { admin: { username: adminUser, password: adminPassword } }),
    ...(databaseUrl === undefined ? {} : { databaseUrl }),
    ...(proxies === undefined || proxies.length === 0 ? {} : { trustedProxies: proxies }),
    ...(idleMinutes === undefined && maxHours === undefined
      ? {}
      : {
          sessionLimits: {
            idleMs: (idleMinutes ?? DEFAULT_SESSION_LIMITS.idleMs / 60_000) * 60_000,
            absoluteMs: (maxHours ?? DEFAULT_SESSION_LIMITS.absoluteMs / 3_600_000) * 3_600_000,
          },
        }),
    ...(maxFailures === undefined && banSeconds === undefined
      ? {}
      : {
          throttle: {
            maxFailures: Math.round(maxFailures ?? DEFAULT_THROTTLE.maxFailures),
            banMs: (banSeconds ?? DEFAULT_THROTTLE.banMs / 1000) * 1000,
          },
        }),
    ...(oidc === undefined ? {} : { oidc }),
    ...(site === undefined ? {} : { site }),
    ...(rdpDriveQuotaBytes === undefined ? {} : { rdpDriveQuotaBytes }),
    ...(desktopHomeQuotaBytes === undefined ? {} : { desktopHomeQuotaBytes }),
  };
}
