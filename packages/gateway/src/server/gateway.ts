// The guacd-compatible server: accepts browser-side connections (normally from the bridge's
// tunnel), runs the guacd handshake on each, and either starts a new VNC session or joins a
// running one. Every failure is answered on the one connection it concerns — an `error`
// instruction, then close — and the server keeps serving everyone else.
//
// Whoever can connect to a gateway can reach desktops through it, as with guacd. Inside
// `serve` it is therefore reached only by the bridge: a Unix socket in the 0700 data dir
// (listen.ts), a join secret (joinAccess.ts), a pool secret before anything else when it serves
// a pool of bridges (poolAuth.ts), VNC servers on Unix sockets only when the caller
// listed them (vncTarget.ts), and logs that name connections by a label, never by their id.
import { randomUUID } from 'node:crypto';
import type { Server, Socket } from 'node:net';
import { pino, type Logger } from 'pino';
import {
  ATTENTION_OPCODE,
  DELIVERY_OPCODE,
  GuacProtocolError,
  GuacStatus,
} from '@overlay-companion/guac';
import { acquireEncodePool, releaseEncodePool } from '../encode/encodePool.js';
import type { RfbClient, RfbConnectOptions } from '../rfb/index.js';
import { DEFAULT_LOSSY_SETTLE_MS, type LossyPolicy } from '../session/encodePolicy.js';
import { VncSession } from '../session/vncSession.js';
import { GuacSocket } from './guacSocket.js';
import { serverHandshake, type Selection } from './handshake.js';
import { JOIN_SECRET_ARG, JoinSecret, unknownConnection } from './joinAccess.js';
import {
  createListener,
  listenOn,
  reloadTls,
  type GatewayTls,
  type ListenTarget,
} from './listen.js';
import { PoolSecret } from './poolAuth.js';
import { parseVncSettings, VncArgsError } from './vncArgs.js';
import { VncTargets } from './vncTarget.js';

export interface GatewayOptions {
  /**
   * TCP interface to listen on; loopback by default. Whoever can reach the port can reach
   * every desktop the gateway can: use `path` when only this machine's owner should.
   */
  host?: string;
  /** TCP port; 0 picks a free one. Default 4822, guacd's port. */
  port?: number;
  /**
   * Listen on this Unix socket instead of TCP (no host or port then). Its directory must
   * belong to this user and be closed to others (0700); the socket is made 0600, a stale one
   * from a crashed run is replaced, and close() removes it.
   */
  path?: string;
  /**
   * When set, `select $<id>` needs this secret as the `join-secret` argument (named in `args`
   * only then); a wrong or missing one is answered like an unknown id. At least 22 characters.
   * Without it, joining works as with guacd: the id alone.
   */
  joinSecret?: string;
  /**
   * When set, every connection must first send this secret (poolAuth.ts) — the gateway then
   * serves only the bridges of its pool. At least 22 characters.
   */
  poolSecret?: string;
  /** Serve TLS on the TCP port (listen.ts), optionally mutual TLS. Not with `path`. */
  tls?: GatewayTls;
  /**
   * Absolute paths of Unix-socket VNC servers that clients may name as `hostname` (e.g. the
   * local desktop `serve` started: LocalDesktop.rfbPath). Passed in-process only; any other
   * path is refused, so a client can never make the gateway open other sockets on this host.
   */
  vncUnixSockets?: readonly string[];
  logger?: Logger;
  /** Time allowed to reach and authenticate with the VNC server. Default 10 s. */
  connectTimeoutMs?: number;
  /**
   * How a VNC server that stopped answering is noticed: after `probeMs` of silence it is asked
   * for one pixel, and `timeoutMs` later with still nothing the connection ends with status 514
   * (UPSTREAM_TIMEOUT). Defaults 2 s and 4 s.
   */
  vncSilence?: { probeMs: number; timeoutMs: number };
  /** Time allowed for each handshake step from the client. Default 15 s, as guacd. */
  handshakeTimeoutMs?: number;
  /** Close a browser that sends nothing for this long (guacd: 15 s); 0 disables. */
  clientIdleTimeoutMs?: number;
  /** Interval of `nop` keep-alives to each browser. Default 5 s, as guacd. */
  keepAliveMs?: number;
  /** Replaces the RFB connector, e.g. to aim failure tests at a fake VNC server. */
  connectRfb?: (options: RfbConnectOptions) => Promise<RfbClient>;
  /** Called once per frame sent to a browser, with how long its images took to encode. */
  onFrameEncoded?: (encodeMs: number) => void;
  /**
   * Lossy images (JPEG/WebP, for browsers that take them): `auto` (default) for busy screen
   * areas whose content suits it, `always` for every image that is not a lossless refresh
   * (to test the refresh path), `never`.
   */
  lossy?: LossyPolicy;
  /** Lossy pixels unchanged this long are redrawn losslessly. Default 300 ms. */
  lossySettleMs?: number;
}

interface GatewayBase {
  /** Ids (with the leading `$`) of the running connections, as sent in `ready`. */
  connectionIds(): string[];
  /**
   * Lets clients name one more Unix-socket VNC server (see vncUnixSockets), e.g. a desktop
   * started on demand after the gateway; the returned function takes it back.
   */
  allowVncUnixSocket(path: string): () => void;
  /**
   * Serves renewed TLS credentials to the links opened from now on (open links keep theirs);
   * throws, keeping the ones in force, when they are not usable (listen.ts).
   */
  reloadTls(tls: GatewayTls): void;
  close(): Promise<void>;
}

export interface TcpGateway extends GatewayBase {
  kind: 'tcp';
  host: string;
  port: number;
  path?: undefined;
}

export interface UnixGateway extends GatewayBase {
  kind: 'unix';
  /** The socket's absolute path. */
  path: string;
  host?: undefined;
  port?: undefined;
}

export type Gateway = TcpGateway | UnixGateway;

export function startGateway(options: GatewayOptions & { path: string }): Promise<UnixGateway>;
export function startGateway(options?: GatewayOptions & { path?: undefined }): Promise<TcpGateway>;
export function startGateway(options?: GatewayOptions): Promise<Gateway>;
export async function startGateway(options: GatewayOptions = {}): Promise<Gateway> {
  const logger = options.logger ?? pino({ name: 'gateway', level: 'info' });
  const target = listenTarget(options);
  const joinSecret =
    options.joinSecret === undefined ? undefined : new JoinSecret(options.joinSecret);
  const poolSecret =
    options.poolSecret === undefined ? undefined : new PoolSecret(options.poolSecret);
  const vncTargets = new VncTargets(options.vncUnixSockets);
  const settings = {
    connectTimeoutMs: options.connectTimeoutMs ?? 10_000,
    handshakeTimeoutMs: options.handshakeTimeoutMs ?? 15_000,
    idleTimeoutMs: options.clientIdleTimeoutMs ?? 15_000,
    keepAliveMs: options.keepAliveMs ?? 5_000,
  };
  const streaming = {
    lossy: options.lossy ?? 'auto',
    settleMs: options.lossySettleMs ?? DEFAULT_LOSSY_SETTLE_MS,
  };
  const sessions = new Map<string, VncSession>();
  const sockets = new Set<Socket>();

  /** The running session a join names, or the one answer for every way a join can fail. */
  const joinable = (selection: Selection & { kind: 'join' }, args: Map<string, string>) => {
    const session = sessions.get(selection.connectionId);
    // Both checks always run, so a wrong secret costs the same time as an unknown id.
    const secretOk = joinSecret?.matches(args.get(JOIN_SECRET_ARG)) ?? true;
    if (session === undefined || !secretOk) throw unknownConnection();
    return session;
  };

  const handle = async (socket: Socket): Promise<void> => {
    const guac = new GuacSocket(socket);
    const log = logger.child({ peer: peerName(socket) });
    try {
      await poolSecret?.check(guac, settings.handshakeTimeoutMs);
      const { selection, args, info } = await serverHandshake(guac, {
        timeoutMs: settings.handshakeTimeoutMs,
        connectionExists: (id) => sessions.has(id),
        joinSecretRequired: joinSecret !== undefined,
      });
      // A join is checked before its other arguments, so that nothing about them can tell a
      // wrong secret from an unknown id.
      const joined = selection.kind === 'join' ? joinable(selection, args) : undefined;
      const vnc = parseVncSettings(args, { requireHostname: selection.kind === 'new' });
      if (guac.isClosed) return;
      let session: VncSession;
      if (joined !== undefined) {
        session = joined;
      } else {
        session = new VncSession({
          id: `$${randomUUID()}`,
          target: vncTargets.resolve(vnc),
          settings: vnc,
          logger,
          connectTimeoutMs: settings.connectTimeoutMs,
          silence: options.vncSilence,
          userTimings: {
            idleTimeoutMs: settings.idleTimeoutMs,
            keepAliveMs: settings.keepAliveMs,
            onFrameEncoded: options.onFrameEncoded,
          },
          streaming,
          pool,
          onEnd: (s) => {
            sessions.delete(s.id);
            logger.info({ connection: s.label }, 'connection ended');
          },
          ...(options.connectRfb ? { connect: options.connectRfb } : {}),
        });
        sessions.set(session.id, session);
      }
      // guacd acknowledges with `ready` before the remote desktop is reached; failures to
      // reach it arrive afterwards as an `error` instruction.
      guac.send([['ready', session.id]]);
      // Tells the bridge it may ask this server to confirm input reached the desktop, and that
      // it sends a browser that only glances fewer frames (packages/guac's delivery.ts, attention.ts).
      guac.send([[DELIVERY_OPCODE], [ATTENTION_OPCODE]]);
      session.addUser(guac, vnc, info.image);
      log.info(
        { connection: session.label, join: joined !== undefined, users: session.userCount },
        'browser joined',
      );
      if (joined === undefined) await session.start();
    } catch (error) {
      if (guac.isClosed) return;
      const status =
        error instanceof GuacProtocolError
          ? error.status
          : error instanceof VncArgsError
            ? GuacStatus.CLIENT_BAD_REQUEST
            : GuacStatus.SERVER_ERROR;
      const message = error instanceof Error ? error.message : String(error);
      // Handshake messages hold no connection id, join secret or password (an id a client
      // sent is not echoed, nor is any argument that can hold a credential), so they can be
      // logged as they are.
      log.info({ status, message }, 'handshake failed');
      guac.sendErrorAndClose(message, status);
    }
  };

  const server: Server = createListener(
    options.tls,
    settings.handshakeTimeoutMs,
    logger,
    (socket) => {
      sockets.add(socket);
      socket.once('close', () => sockets.delete(socket));
      // A socket error must only ever end that socket.
      socket.on('error', () => undefined);
      handle(socket).catch((error: unknown) => {
        logger.error({ err: error }, 'connection handling failed');
        socket.destroy();
      });
    },
  );
  server.on('error', (error) => logger.error({ err: error }, 'gateway server error'));

  const pool = acquireEncodePool();
  let listening: Awaited<ReturnType<typeof listenOn>>;
  try {
    listening = await listenOn(server, target);
  } catch (error) {
    await releaseEncodePool();
    throw error;
  }
  const { address, removeSocket } = listening;
  logger.info(
    address.kind === 'tcp' ? { host: address.host, port: address.port } : { path: address.path },
    'gateway listening',
  );

  let closing: Promise<void> | undefined;
  const base: GatewayBase = {
    connectionIds: () => [...sessions.keys()],
    allowVncUnixSocket: (path) => vncTargets.allow(path),
    reloadTls: (tls) => reloadTls(server, tls),
    close: () => {
      closing ??= new Promise<void>((resolve) => {
        server.close(() => resolve());
        for (const session of [...sessions.values()]) session.close();
        for (const socket of sockets) socket.destroy();
      })
        .then(removeSocket)
        .then(releaseEncodePool);
      return closing;
    },
  };
  return address.kind === 'tcp'
    ? { ...base, kind: 'tcp', host: address.host, port: address.port }
    : { ...base, kind: 'unix', path: address.path };
}

function listenTarget(options: GatewayOptions): ListenTarget {
  if (options.path === undefined) {
    return { host: options.host ?? '127.0.0.1', port: options.port ?? 4822 };
  }
  if (options.tls !== undefined)
    throw new Error('startGateway serves TLS on TCP only; a Unix socket needs none.');
  if (options.host !== undefined || options.port !== undefined) {
    throw new Error(
      'startGateway takes either a Unix socket path or a TCP host and port, not both; drop one.',
    );
  }
  return { path: options.path };
}

/** For logs: the TCP peer, or that the peer came through the Unix socket. */
function peerName(socket: Socket): string {
  if (socket.remoteAddress === undefined) return 'unix';
  return `${socket.remoteAddress}:${String(socket.remotePort ?? '?')}`;
}
