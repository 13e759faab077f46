// OC_NATS_URL (and OC_NATS_TOKEN) read into what the NATS client needs: the servers without
// credentials (safe to log) and the credentials apart. Bridges started with the same DATABASE_URL
// and OC_NATS_URL form one site; nothing else is configured. Anyone who may publish on the NATS
// server controls the site (revokes nothing, stops nothing, or forwards input to a desktop), so a
// site's NATS must require credentials: `nats://USER:PASSWORD@host:4222`, `nats://TOKEN@host:4222`,
// or OC_NATS_TOKEN beside a bare URL. Several servers (a NATS cluster) are comma-separated.
// The bus keys (siteKeys.ts), for rotating the key every bus message is sealed with: unset, the
// key derived from the database's secret (key 0); OC_SITE_BUS_KEY=ID:HEX seals with a key of the
// operator's (ID 1–65535, HEX its 32 bytes as 64 hex digits), and OC_SITE_BUS_KEYS_ACCEPTED
// lists the others the bridge opens too (ID:HEX, or 0 for the database's), comma-separated.
import { ConfigError } from '../errors.js';
import { DATABASE_BUS_KEY, MAX_BUS_KEY_ID, type BusKey, type BusKeyConfig } from './siteKeys.js';

export interface SiteConfig {
  /** host:port of each NATS server, without credentials (for logs and the client). */
  servers: string[];
  user?: string;
  pass?: string;
  token?: string;
  /** The bus keys given (OC_SITE_BUS_KEY, OC_SITE_BUS_KEYS_ACCEPTED); none: the database's. */
  busKeys?: BusKeyConfig;
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
  const busKeys = readBusKeys(env);
  if (busKeys !== undefined) config.busKeys = busKeys;
  return config;
}

/** OC_SITE_BUS_KEY and OC_SITE_BUS_KEYS_ACCEPTED; undefined when neither is set. */
export function readBusKeys(
  env: Readonly<Record<string, string | undefined>>,
): BusKeyConfig | undefined {
  const currentText = env.OC_SITE_BUS_KEY?.trim() ?? '';
  const acceptedText = env.OC_SITE_BUS_KEYS_ACCEPTED?.trim() ?? '';
  if (currentText === '' && acceptedText === '') return undefined;
  if (currentText === String(DATABASE_BUS_KEY))
    throw new ConfigError(
      'OC_SITE_BUS_KEY: key 0 is the one derived from the database; leave OC_SITE_BUS_KEY unset to seal with it.',
    );
  const current = currentText === '' ? undefined : configuredKey('OC_SITE_BUS_KEY', currentText);
  const accepted = acceptedText
    .split(',')
    .map((part) => part.trim())
    .filter((part) => part !== '')
    .map((part) =>
      part === String(DATABASE_BUS_KEY)
        ? DATABASE_BUS_KEY
        : configuredKey('OC_SITE_BUS_KEYS_ACCEPTED', part),
    );
  // One id, one key: two bridges must never open one id with different keys.
  const byId = new Map<number, string>();
  for (const key of [current, ...accepted]) {
    if (key === undefined) continue;
    const id = key === DATABASE_BUS_KEY ? DATABASE_BUS_KEY : key.id;
    const secret = key === DATABASE_BUS_KEY ? 'database' : key.secret.toString('hex');
    const before = byId.get(id);
    if (before !== undefined && before !== secret)
      throw new ConfigError(
        `OC_SITE_BUS_KEY and OC_SITE_BUS_KEYS_ACCEPTED give bus key ${String(id)} twice with different keys; each id names one key.`,
      );
    byId.set(id, secret);
  }
  return { current, accepted };
}

/** One ID:HEX of `name` (the key is never echoed in an error). */
function configuredKey(name: string, text: string): BusKey {
  const match = /^(\d{1,5}):([0-9a-fA-F]{64})$/.exec(text);
  const id = Number(match?.[1]);
  if (match === null || !Number.isInteger(id) || id > MAX_BUS_KEY_ID)
    throw new ConfigError(
      `${name}: write each key as ID:HEX — ID a number from 1 to ${String(MAX_BUS_KEY_ID)} (not secret), HEX 64 hex digits (openssl rand -hex 32); in OC_SITE_BUS_KEYS_ACCEPTED, 0 alone is the key derived from the database.`,
    );
  if (id === DATABASE_BUS_KEY)
    throw new ConfigError(
      `${name}: key 0 is the one derived from the database; it has no HEX of its own.`,
    );
  return { id, secret: Buffer.from(match[2]!, 'hex') };
}

/** The address with any credentials replaced, for messages. */
function redact(text: string): string {
  return text.replace(/\/\/[^@/]*@/, '//***@');
}
