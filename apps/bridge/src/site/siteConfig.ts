// OC_NATS_URL (and OC_NATS_TOKEN) read into what the NATS client needs: the servers without
// credentials (safe to log) and the credentials apart. Bridges started with the same DATABASE_URL
// and OC_NATS_URL form one site; nothing else is configured. Anyone who may publish on the NATS
// server controls the site (revokes nothing, stops nothing, or forwards input to a desktop), so a
// site's NATS must require credentials: `nats://USER:PASSWORD@host:4222`, `nats://TOKEN@host:4222`,
// or OC_NATS_TOKEN beside a bare URL. Several servers (a NATS cluster) are comma-separated.
import { ConfigError } from '../errors.js';

export interface SiteConfig {
  /** host:port of each NATS server, without credentials (for logs and the client). */
  servers: string[];
  user?: string;
  pass?: string;
  token?: string;
}

/** Undefined when OC_NATS_URL is unset or empty: the bridge is a site of its own (one process). */
export function readSiteConfig(
  env: Readonly<Record<string, string | undefined>>,
): SiteConfig | undefined {
  const raw = env.OC_NATS_URL?.trim();
  if (raw === undefined || raw === '') return undefined;
  const config: SiteConfig = { servers: [] };
  for (const part of raw.split(',')) {
    const text = part.trim();
    if (text === '') continue;
    let url: URL;
    try {
      url = new URL(text.includes('://') ? text : `nats://${text}`);
    } catch {
      throw new ConfigError(
        `OC_NATS_URL: "${redact(text)}" is not a NATS address; write nats://USER:PASSWORD@HOST:4222 (several comma-separated).`,
      );
    }
    if (url.protocol !== 'nats:' && url.protocol !== 'tls:')
      throw new ConfigError(
        `OC_NATS_URL: ${url.protocol} is not a NATS scheme; use nats:// (or tls:// for TLS).`,
      );
    if (url.hostname === '')
      throw new ConfigError('OC_NATS_URL: an address has no host; write nats://HOST:4222.');
    const user = decodeURIComponent(url.username);
    const pass = decodeURIComponent(url.password);
    if (user !== '' && pass !== '') {
      config.user = user;
      config.pass = pass;
    } else if (user !== '') {
      config.token = user;
    }
    config.servers.push(`${url.protocol}//${url.host}`);
  }
  if (config.servers.length === 0)
    throw new ConfigError('OC_NATS_URL is set but names no server; write nats://HOST:4222.');
  const token = env.OC_NATS_TOKEN?.trim();
  if (token !== undefined && token !== '') {
    if (config.user !== undefined)
      throw new ConfigError(
        'OC_NATS_TOKEN and a user:password in OC_NATS_URL were both given; use one of them.',
      );
    config.token = token;
  }
  return config;
}

/** The address with any credentials replaced, for messages. */
function redact(text: string): string {
  return text.replace(/\/\/[^@/]*@/, '//***@');
}
