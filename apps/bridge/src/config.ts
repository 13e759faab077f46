// The bridge's one configuration object, validated with zod. Everything the bridge needs to
// serve and to reach the desktop lives here; connection parameters (hosts, credentials) come
// only from this server-side object, never from a browser.
import type { SecureContext } from 'node:tls';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import { ConfigError } from './errors.js';
import { desktopSizeSchema } from './desktops/desktopSize.js';

export const hostPortSchema = z.object({
  host: z.string().min(1),
  port: z.number().int().min(1).max(65535),
});
export type HostPort = z.infer<typeof hostPortSchema>;

/**
 * TLS for a pool link (gateways:// and guacds:// in --gateways; tunnel/poolTls.ts): the CA that
 * must have signed the member's certificate (OC_POOL_CA, else the system's) and the bridge's
 * own certificate when set. Built once at start; holds no key material a logger could print.
 */
export const poolTlsSchema = z.custom<SecureContext>(
  (value) => typeof value === 'object' && value !== null && 'context' in value,
);

/**
 * Where the guacd-compatible server is: TCP (a real guacd, `--guacd`, or a member of the
 * gateway pool, `--gateways`) or a Unix socket (the embedded gateway inside `serve`, reachable
 * only through the 0700 data dir). A pool member that is our gateway carries the pool secret,
 * sent before the handshake (tunnel/upstream.ts); never logged (the logger redacts `secret`).
 */
export const guacdAddressSchema = z.union([
  hostPortSchema.extend({ secret: z.string().min(22).optional(), tls: poolTlsSchema.optional() }),
  z.strictObject({ path: z.string().min(1) }),
]);
export type GuacdAddress = z.infer<typeof guacdAddressSchema>;

/** "host:port" or the socket path, for messages (never credentials). */
export function describeGuacd(address: GuacdAddress): string {
  return 'path' in address ? address.path : `${address.host}:${address.port}`;
}

/** What the bridge asks guacd (or the embedded gateway) to connect to. */
export const connectionSchema = z.object({
  protocol: z.enum(['vnc', 'rdp']),
  /** guacd argument name → value (hostname, port, password, ...). Unnamed args are sent empty. */
  params: z.record(z.string(), z.string()),
});
export type ConnectionConfig = z.infer<typeof connectionSchema>;

export const tunnelConfigSchema = z.object({
  /** Whole instructions are batched into one WebSocket message up to about this many chars. */
  maxMessageChars: z.number().int().min(256).default(8192),
  /** Pause reading from guacd once this many bytes wait in the browser socket... */
  highWaterBytes: z
    .number()
    .int()
    .min(1024)
    .default(4 * 1024 * 1024),
  /** ...and resume once they drop to this. */
  lowWaterBytes: z
    .number()
    .int()
    .min(0)
    .default(1024 * 1024),
  /** How long the guacd handshake (select → ready) may take. */
  handshakeTimeoutMs: z.number().int().min(100).default(15_000),
  /** Browser instructions buffered while the handshake runs, beyond which the tunnel closes. */
  maxEarlyMessages: z.number().int().min(0).default(256),
  /** Gateways and guacds shared by the site's bridges (--gateways; tunnel/gatewayPool.ts). */
  gatewayPool: z
    .object({
      members: z
        .array(
          hostPortSchema.extend({
            kind: z.enum(['gateway', 'guacd']),
            tls: poolTlsSchema.optional(),
          }),
        )
        .min(1),
      /** OC_GATEWAY_SECRET: what our gateways ask for first. */
      secret: z.string().min(22).optional(),
    })
    .optional(),
});
export type TunnelConfig = z.infer<typeof tunnelConfigSchema>;

const defaultWebRoot = fileURLToPath(new URL('../../web/dist', import.meta.url));

export const bridgeConfigSchema = z.object({
  host: z.string().min(1).default('127.0.0.1'),
  /** 0 picks a free port; startBridge reports the real one. */
  port: z.number().int().min(0).max(65535).default(8080),
  dataDir: z.string().min(1).default('./.data'),
  /** The built viewer (apps/web/dist), served at `/`. */
  webRoot: z.string().min(1).default(defaultWebRoot),
  /** The guacd-compatible server the tunnel talks to (embedded gateway or real guacd). */
  guacd: guacdAddressSchema,
  connection: connectionSchema,
  /** The operator's fixed desktop size (--desktop-size); unset lets each person's layout decide. */
  desktopSize: desktopSizeSchema.optional(),
  tunnel: tunnelConfigSchema.prefault({}),
});
export type BridgeConfig = z.output<typeof bridgeConfigSchema>;
export type BridgeConfigInput = z.input<typeof bridgeConfigSchema>;

export function parseBridgeConfig(input: unknown): BridgeConfig {
  const result = bridgeConfigSchema.safeParse(input);
  if (!result.success) {
    throw new ConfigError(`Invalid bridge configuration:\n${z.prettifyError(result.error)}`);
  }
  return result.data;
}

/**
 * Parses `HOST:PORT` (IPv6 as `[::1]:4822`). `what` names the flag in the error so the person
 * knows which one to fix.
 */
export function parseHostPort(
  text: string,
  what: string,
  options: { allowPortZero?: boolean } = {},
): HostPort {
  const match = /^(?:\[([^\]]+)\]|([^:[\]]+)):(\d{1,5})$/.exec(text.trim());
  const host = match?.[1] ?? match?.[2];
  const port = Number(match?.[3]);
  const schema = options.allowPortZero
    ? hostPortSchema.extend({ port: z.number().int().min(0).max(65535) })
    : hostPortSchema;
  const result = schema.safeParse({ host, port });
  if (!match || !result.success) {
    throw new ConfigError(`${what} expects HOST:PORT (for example 127.0.0.1:5901), got "${text}".`);
  }
  return result.data;
}
