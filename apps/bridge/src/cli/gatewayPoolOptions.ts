// The gateway pool of `serve` (--gateways, else OC_GATEWAYS) and the pool secret (OC_GATEWAY_SECRET,
// only from the environment so it never shows in `ps`): a comma-separated list of
// `gateway://HOST:PORT` (an `overlay-companion gateway` started with the same OC_GATEWAY_SECRET)
// and `guacd://HOST:PORT` (Apache guacd, which has no authentication: keep it on a private network
// or behind TLS). A `gateway://` member needs the secret, so a pool link is never opened without it.
import { MIN_POOL_SECRET_LENGTH } from '@overlay-companion/gateway';
import { ConfigError, UsageError } from '../errors.js';
import { parseHostPort, type TunnelConfig } from '../config.js';

export type GatewayPoolOption = NonNullable<TunnelConfig['gatewayPool']>;

const KINDS = { 'gateway://': 'gateway', 'guacd://': 'guacd' } as const;

export function parseGatewayPool(
  flag: string | undefined,
  env: NodeJS.ProcessEnv,
): GatewayPoolOption | undefined {
  const text = (flag ?? env.OC_GATEWAYS ?? '').trim();
  if (text === '') return undefined;
  const members: GatewayPoolOption['members'] = [];
  for (const item of text.split(',').map((part) => part.trim())) {
    const scheme = (Object.keys(KINDS) as (keyof typeof KINDS)[]).find((s) => item.startsWith(s));
    if (scheme === undefined)
      throw new UsageError(
        `--gateways (OC_GATEWAYS) lists gateway://HOST:PORT (overlay-companion gateway) and guacd://HOST:PORT (Apache guacd), comma-separated; got "${item}".`,
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
    members.push({ ...address, kind: KINDS[scheme] });
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
