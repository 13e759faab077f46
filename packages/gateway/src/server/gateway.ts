// The guacd-compatible TCP server: accepts browser-side connections (normally from the
// bridge's tunnel), runs the guacd handshake on each, and either starts a new VNC session or
// joins a running one. Every failure is answered on the one connection it concerns — an
// `error` instruction, then close — and the server keeps serving everyone else.
import { randomUUID } from 'node:crypto';
import { createServer, type Server, type Socket } from 'node:net';
import { pino, type Logger } from 'pino';
import { GuacProtocolError, GuacStatus } from '@overlay-companion/guac';
import type { RfbClient, RfbConnectOptions } from '../rfb/index.js';
import { VncSession } from '../session/vncSession.js';
import { GuacSocket } from './guacSocket.js';
import { serverHandshake } from './handshake.js';
import { parseVncSettings, VncArgsError } from './vncArgs.js';

export interface GatewayOptions {
  /** Interface to listen on; loopback by default (the gateway trusts whoever connects). */
  host?: string;
  /** TCP port; 0 picks a free one. Default 4822, guacd's port. */
  port?: number;
  logger?: Logger;
  /** Time allowed to reach and authenticate with the VNC server. Default 10 s. */
  connectTimeoutMs?: number;
  /** Time allowed for each handshake step from the client. Default 15 s, as guacd. */
  handshakeTimeoutMs?: number;
  /** Close a browser that sends nothing for this long (guacd: 15 s); 0 disables. */
  clientIdleTimeoutMs?: number;
  /** Interval of `nop` keep-alives to each browser. Default 5 s, as guacd. */
  keepAliveMs?: number;
  /** Replaces the RFB connector, e.g. to aim failure tests at a fake VNC server. */
  connectRfb?: (options: RfbConnectOptions) => Promise<RfbClient>;
}

export interface Gateway {
  host: string;
  port: number;
  /** Ids (with the leading `$`) of the running connections, as sent in `ready`. */
  connectionIds(): string[];
  close(): Promise<void>;
}

export async function startGateway(options: GatewayOptions = {}): Promise<Gateway> {
  const logger = options.logger ?? pino({ name: 'gateway', level: 'info' });
  const settings = {
    connectTimeoutMs: options.connectTimeoutMs ?? 10_000,
    handshakeTimeoutMs: options.handshakeTimeoutMs ?? 15_000,
    idleTimeoutMs: options.clientIdleTimeoutMs ?? 15_000,
    keepAliveMs: options.keepAliveMs ?? 5_000,
  };
  const sessions = new Map<string, VncSession>();
  const sockets = new Set<Socket>();

  const handle = async (socket: Socket): Promise<void> => {
    const guac = new GuacSocket(socket);
    const log = logger.child({
      peer: `${socket.remoteAddress ?? '?'}:${String(socket.remotePort ?? '?')}`,
    });
    try {
      const { selection, args } = await serverHandshake(guac, {
        timeoutMs: settings.handshakeTimeoutMs,
        connectionExists: (id) => sessions.has(id),
      });
      const vnc = parseVncSettings(args, { requireHostname: selection.kind === 'new' });
      if (guac.isClosed) return;
      let session: VncSession | undefined;
      if (selection.kind === 'join') {
        session = sessions.get(selection.connectionId);
        if (session === undefined) {
          throw new GuacProtocolError(
            `Connection "${selection.connectionId}" ended during the handshake; use "select vnc" to start a new one.`,
            GuacStatus.RESOURCE_NOT_FOUND,
          );
        }
      } else {
        session = new VncSession({
          id: `$${randomUUID()}`,
          settings: vnc,
          logger,
          connectTimeoutMs: settings.connectTimeoutMs,
          viewerTimings: {
            idleTimeoutMs: settings.idleTimeoutMs,
            keepAliveMs: settings.keepAliveMs,
          },
          onEnd: (s) => {
            sessions.delete(s.id);
            logger.info({ connection: s.id }, 'connection ended');
          },
          ...(options.connectRfb ? { connect: options.connectRfb } : {}),
        });
        sessions.set(session.id, session);
      }
      // guacd acknowledges with `ready` before the remote desktop is reached; failures to
      // reach it arrive afterwards as an `error` instruction.
      guac.send([['ready', session.id]]);
      session.addViewer(guac, vnc);
      log.info(
        { connection: session.id, join: selection.kind === 'join', viewers: session.viewerCount },
        'browser joined',
      );
      if (selection.kind === 'new') await session.start();
    } catch (error) {
      if (guac.isClosed) return;
      const status =
        error instanceof GuacProtocolError
          ? error.status
          : error instanceof VncArgsError
            ? GuacStatus.CLIENT_BAD_REQUEST
            : GuacStatus.SERVER_ERROR;
      const message = error instanceof Error ? error.message : String(error);
      log.info({ status, message }, 'handshake failed');
      guac.sendErrorAndClose(message, status);
    }
  };

  const server: Server = createServer((socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
    // A socket error must only ever end that socket.
    socket.on('error', () => undefined);
    handle(socket).catch((error: unknown) => {
      logger.error({ err: error }, 'connection handling failed');
      socket.destroy();
    });
  });
  server.on('error', (error) => logger.error({ err: error }, 'gateway server error'));

  const host = options.host ?? '127.0.0.1';
  await new Promise<void>((resolve, reject) => {
    const onError = (error: Error): void => reject(error);
    server.once('error', onError);
    server.listen(options.port ?? 4822, host, () => {
      server.off('error', onError);
      resolve();
    });
  });
  const address = server.address();
  const port = typeof address === 'object' && address !== null ? address.port : 0;
  logger.info({ host, port }, 'gateway listening');

  let closing: Promise<void> | undefined;
  return {
    host,
    port,
    connectionIds: () => [...sessions.keys()],
    close: () => {
      closing ??= new Promise<void>((resolve) => {
        server.close(() => resolve());
        for (const session of [...sessions.values()]) session.close();
        for (const socket of sockets) socket.destroy();
      });
      return closing;
    },
  };
}
