// The gateway pool of `serve` (--gateways, else OC_GATEWAYS) and the pool secret (OC_GATEWAY_SECRET,
// only from the environment so it never shows in `ps`): a comma-separated list of
// `gateway://HOST:PORT` (an `overlay-companion gateway` started with the same OC_GATEWAY_SECRET)
// and `guacd://HOST:PORT` (Apache guacd, which has no authentication: keep it on a private network
// or behind TLS). A `gateway://` member needs the secret, so a pool link is never opened without it.
// `gateways://` and `guacds://` are the same over TLS (tunnel/poolTls.ts): the member's certificate
// is checked against OC_POOL_CA (a PEM file; else the system's CAs) and the host, and the bridge
// shows OC_POOL_CLIENT_CERT with OC_POOL_CLIENT_KEY (PEM files) to a member that asks (mutual TLS).
// Renewed files are taken up without a restart (watchPoolTls): links opened after use them.
import { X509Certificate, createPrivateKey } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createSecureContext, type SecureContext } from 'node:tls';
import {
  MIN_POOL_SECRET_LENGTH,
  TLS_FILE_POLL_MS,
  watchTlsFiles,
} from '@overlay-companion/gateway';
import type { Logger } from 'pino';
import { ConfigError, UsageError } from '../errors.js';
import { parseHostPort, type TunnelConfig } from '../config.js';

export type GatewayPoolOption = NonNullable<TunnelConfig['gatewayPool']>;

const KINDS = {
  'gateway://': { kind: 'gateway', tls: false },
  'guacd://': { kind: 'guacd', tls: false },
  'gateways://': { kind: 'gateway', tls: true },
  'guacds://': { kind: 'guacd', tls: true },
} as const;

export function parseGatewayPool(
  flag: string | undefined,
  env: NodeJS.ProcessEnv,
): GatewayPoolOption | undefined {
  const text = (flag ?? env.OC_GATEWAYS ?? '').trim();
  if (text === '') return undefined;
  const members: GatewayPoolOption['members'] = [];
  let context: SecureContext | undefined;
  for (const item of text.split(',').map((part) => part.trim())) {
    const scheme = (Object.keys(KINDS) as (keyof typeof KINDS)[]).find((s) => item.startsWith(s));
    if (scheme === undefined)
      throw new UsageError(
        `--gateways (OC_GATEWAYS) lists gateway://HOST:PORT (overlay-companion gateway) and guacd://HOST:PORT (Apache guacd), or gateways:// and guacds:// for TLS, comma-separated; got "${item}".`,
      );
    let address;
    try {
      address = parseHostPort(item.slice(scheme.length), '--gateways (OC_GATEWAYS)');
    } catch (err) {
      if (err instanceof ConfigError) throw new UsageError(err.message);
      throw err;
    }
    if (members.some((m) => m.host === address.host && m.port === address.port))
      throw new UsageError(`--gateways (OC_GATEWAYS) names ${item} twice.`);
    const { kind, tls } = KINDS[scheme];
    context ??= tls ? poolTlsContext(env) : undefined;
    members.push({ ...address, kind, ...(tls && context !== undefined ? { tls: context } : {}) });
  }
  const secret = parsePoolSecret(env);
  if (secret === undefined && members.some((m) => m.kind === 'gateway'))
    throw new UsageError(
      'gateway:// members of --gateways only serve bridges that know their secret: set OC_GATEWAY_SECRET (the same on every bridge and gateway; e.g. `openssl rand -base64 32`).',
    );
  return { members, ...(secret === undefined ? {} : { secret }) };
}

/** OC_GATEWAY_SECRET, checked for length; undefined when unset. */
export function parsePoolSecret(env: NodeJS.ProcessEnv): string | undefined {
  const secret = env.OC_GATEWAY_SECRET;
  if (secret === undefined || secret === '') return undefined;
  if (secret.length < MIN_POOL_SECRET_LENGTH)
    throw new UsageError(
      `OC_GATEWAY_SECRET must be at least ${String(MIN_POOL_SECRET_LENGTH)} characters; make one with \`openssl rand -base64 32\`.`,
    );
  return secret;
}

/**
 * The bridge's TLS settings for gateways:// and guacds:// members, from OC_POOL_CA,
 * OC_POOL_CLIENT_CERT and OC_POOL_CLIENT_KEY (PEM files, read at start and when they change:
 * watchPoolTls).
 */
export function poolTlsContext(env: NodeJS.ProcessEnv): SecureContext {
  const read = (name: string): Buffer | undefined => {
    const file = env[name]?.trim();
    if (file === undefined || file === '') return undefined;
    try {
      return readFileSync(file);
    } catch (err) {
      throw new UsageError(
        `${name}=${file} cannot be read (${(err as NodeJS.ErrnoException).code ?? String(err)}): give a PEM file this user can read.`,
      );
    }
  };
  const ca = read('OC_POOL_CA');
  const cert = read('OC_POOL_CLIENT_CERT');
  const key = read('OC_POOL_CLIENT_KEY');
  if ((cert === undefined) !== (key === undefined))
    throw new UsageError(
      "OC_POOL_CLIENT_CERT and OC_POOL_CLIENT_KEY go together: set both (the bridge's certificate for gateways that ask for one) or neither.",
    );
  try {
    // createSecureContext takes a `ca` that holds no certificate without a word (and then
    // trusts nothing): each file is parsed first, so a wrong one is said at start.
    if (ca !== undefined) new X509Certificate(ca);
    if (cert !== undefined) new X509Certificate(cert);
    if (key !== undefined) createPrivateKey(key);
    return createSecureContext({
      ...(ca === undefined ? {} : { ca }),
      ...(cert === undefined || key === undefined ? {} : { cert, key }),
      minVersion: 'TLSv1.2',
    });
  } catch (err) {
    throw new UsageError(
      `The pool's TLS files (OC_POOL_CA, OC_POOL_CLIENT_CERT, OC_POOL_CLIENT_KEY) are not usable PEM (${(err as NodeJS.ErrnoException).code ?? 'unreadable'}): give PEM certificates and an unencrypted PEM key.`,
    );
  }
}

/**
 * Reads the pool's TLS files again whenever they change (a renewed client certificate, a new CA)
 * and puts them in force for the links opened from then on — every member shares the one
 * context, whose native part is swapped; links already open keep theirs. Files that are not
 * usable leave the previous ones in force, and the log says why (never their content).
 * Returns what stops the polling; undefined when the pool has no TLS member.
 */
export function watchPoolTls(
  pool: GatewayPoolOption | undefined,
  env: NodeJS.ProcessEnv,
  logger: Logger,
  pollMs: number = TLS_FILE_POLL_MS,
): (() => void) | undefined {
  const context = pool?.members.find((m) => m.tls !== undefined)?.tls;
  if (context === undefined) return undefined;
  const files = ['OC_POOL_CA', 'OC_POOL_CLIENT_CERT', 'OC_POOL_CLIENT_KEY']
    .map((name) => env[name]?.trim() ?? '')
    .filter((file) => file !== '');
  if (files.length === 0) return undefined;
  const watch = watchTlsFiles(
    files,
    () => {
      try {
        context.context = poolTlsContext(env).context as unknown;
        logger.info("the pool's TLS files changed: links opened from now on use them");
      } catch (err) {
        logger.warn(
          { reason: err instanceof Error ? err.message : String(err) },
          "the pool's TLS files changed but are not usable: links keep using the previous ones",
        );
      }
    },
    pollMs,
  );
  return () => watch.close();
}
