// Opening a connection to the guacd-compatible server (TCP, TLS to a pool member written
// gateways:// or guacds:// (poolTls.ts), or a Unix socket; the pool secret first for a pool
// gateway that asks for it, then the guacd handshake with server-side parameters and a size the
// bridge decided), and turning any failure before the relay starts into a Guacamole status plus a
// sentence the person can act on.
import { connect, type Socket } from 'node:net';
import {
  GuacConnection,
  GuacProtocolError,
  GuacStatus,
  clientHandshake,
} from '@overlay-companion/guac';
import { POOL_AUTH_OPCODE } from '@overlay-companion/gateway';
import { describeGuacd, type GuacdAddress } from '../config.js';
import type { DesktopSize } from '../desktops/desktopSize.js';
import { PoolTlsError, connectPoolTls, type TlsFailure } from './poolTls.js';

const IMAGE_TYPES = ['image/png', 'image/jpeg', 'image/webp'];

/**
 * The DPI the bridge tells guacd. guacd's RDP plugin scales a user's `size` by
 * (connection DPI / that user's DPI); the same value on both sides keeps sizes 1:1.
 */
export const HANDSHAKE_DPI = 96;

// RDP arguments for Apache guacd: accept whatever security the server offers (xrdp negotiates
// TLS, never NLA) and its self-signed certificate; no graphics pipeline (guacd 1.6 turns it on
// by default, and its RemoteFX codec is lossy: a still xrdp desktop then differed from
// `xwd -root` in a tenth of its pixels; plain bitmap updates are exact); resize the session through the Display
// Update channel (xrdp 0.9.21 takes it without reconnecting) when the bridge sends a decided
// size — browsers' `size` instructions never reach guacd; and one DPI on both sides, so guacd
// passes sizes on 1:1. The session's width and height are set per connection by the tunnel
// (tunnel/desktopConnections.ts).
export const RDP_DEFAULTS: Readonly<Record<string, string>> = {
  security: 'any',
  'ignore-cert': 'true',
  'resize-method': 'display-update',
  dpi: String(HANDSHAKE_DPI),
  'color-depth': '24',
  'disable-audio': 'true',
  'disable-gfx': 'true',
};

export interface OpenedUpstream {
  socket: Socket;
  conn: GuacConnection;
  /** guacd's id of the connection (from `ready`): a capability to join it, never logged. */
  connectionId: string;
}

export interface OpenUpstreamOptions {
  /** A protocol (`vnc`, `rdp`) for a new connection, or `$<id>` to join a running one. */
  select: string;
  params: Record<string, string>;
  size: DesktopSize;
  timeoutMs: number;
}

/** Connects and runs the guacd handshake; rejects with a status-carrying error. */
export async function openUpstream(
  guacd: GuacdAddress,
  options: OpenUpstreamOptions,
): Promise<OpenedUpstream> {
  const socket = await connectGuacd(guacd, options.timeoutMs);
  const conn = new GuacConnection(socket);
  // A pool gateway serves only bridges that open with the pool secret (gateway's poolAuth.ts).
  if ('secret' in guacd && guacd.secret !== undefined) conn.send(POOL_AUTH_OPCODE, guacd.secret);
  const { connectionId } = await clientHandshake(conn, {
    select: options.select,
    params: options.params,
    info: {
      width: options.size.width,
      height: options.size.height,
      dpi: HANDSHAKE_DPI,
      audio: [],
      video: [],
      image: IMAGE_TYPES,
    },
    timeoutMs: options.timeoutMs,
  });
  return { socket, conn, connectionId };
}

/** True for the answer to joining a connection that has ended (guacd and our gateway alike). */
export function isGoneConnection(err: unknown): boolean {
  return err instanceof GuacProtocolError && err.status === GuacStatus.RESOURCE_NOT_FOUND;
}

/** A failure while opening the tunnel, with the status the browser should see. */
export class TunnelStartError extends Error {
  override name = 'TunnelStartError';
  constructor(
    message: string,
    readonly status: number,
    /** Set when a pool member's TLS failed (the pool takes it out with these words). */
    readonly tlsFailure?: TlsFailure,
  ) {
    super(message);
  }
}

export function connectGuacd(guacd: GuacdAddress, timeoutMs: number): Promise<Socket> {
  if ('host' in guacd && guacd.tls !== undefined) return connectTls(guacd, guacd.tls, timeoutMs);
  return new Promise((resolve, reject) => {
    const socket =
      'path' in guacd
        ? connect({ path: guacd.path })
        : connect({ host: guacd.host, port: guacd.port });
    const fail = (why: string, status: number) => {
      socket.destroy();
      reject(unreachable(guacd, why, status));
    };
    const timer = setTimeout(
      () => fail(`no answer within ${timeoutMs} ms`, GuacStatus.UPSTREAM_TIMEOUT),
      timeoutMs,
    );
    socket.once('error', (err: NodeJS.ErrnoException) => {
      clearTimeout(timer);
      fail(err.code ?? err.message, GuacStatus.UPSTREAM_NOT_FOUND);
    });
    socket.once('connect', () => {
      clearTimeout(timer);
      socket.removeAllListeners('error');
      // Frames are latency-sensitive and already batched by guacd; never wait for Nagle.
      socket.setNoDelay(true);
      resolve(socket);
    });
  });
}

/** A TLS link to a pool member; never plaintext, whatever goes wrong. */
async function connectTls(
  guacd: { host: string; port: number },
  context: NonNullable<Extract<GuacdAddress, { host: string }>['tls']>,
  timeoutMs: number,
): Promise<Socket> {
  const { socket, opened } = connectPoolTls(guacd, context);
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () =>
        reject(unreachable(guacd, `no answer within ${timeoutMs} ms`, GuacStatus.UPSTREAM_TIMEOUT)),
      timeoutMs,
    );
  });
  try {
    const secured = await Promise.race([opened, timedOut]);
    secured.on('error', () => undefined);
    secured.setNoDelay(true);
    return secured;
  } catch (err) {
    socket.destroy();
    if (err instanceof PoolTlsError)
      throw new TunnelStartError(
        `The bridge's TLS link to the pool member at ${describeGuacd(guacd)} failed (${err.message}). Check the member's certificate, OC_POOL_CA and OC_POOL_CLIENT_CERT.`,
        GuacStatus.UPSTREAM_NOT_FOUND,
        err.failure,
      );
    if (err instanceof TunnelStartError) throw err;
    const code = (err as NodeJS.ErrnoException).code;
    throw unreachable(guacd, code ?? String(err), GuacStatus.UPSTREAM_NOT_FOUND);
  } finally {
    clearTimeout(timer);
  }
}

function unreachable(guacd: GuacdAddress, why: string, status: number): TunnelStartError {
  return new TunnelStartError(
    `The bridge cannot reach the guacd-compatible server at ${describeGuacd(guacd)} (${why}). Start it, or point the bridge at a running one with --guacd HOST:PORT.`,
    status,
  );
}

/** Status and message for a failure before the relay began. */
export function describeStartFailure(err: unknown): { status: number; message: string } {
  if (err instanceof TunnelStartError || err instanceof GuacProtocolError) {
    return { status: err.status, message: err.message };
  }
  const message = err instanceof Error ? err.message : String(err);
  return { status: GuacStatus.SERVER_ERROR, message: `The tunnel could not be opened: ${message}` };
}
