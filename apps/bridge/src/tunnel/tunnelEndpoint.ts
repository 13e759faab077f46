// The `/tunnel` WebSocket endpoint: accepts upgrades that carry a single-use tunnel ticket (a
// signed-in person's, for this socket kind) within the person's cap on open tunnels (both
// checked in perimeter/socketTickets.ts) and ask for the `guacamole` subprotocol, checks the
// person may see the ticket's desktop (TunnelDesktops; a view grant gives a tunnel whose input
// is dropped), and starts one TunnelSession per socket; every
// tunnel to one desktop shares its connection (desktopConnections.ts). The browser's screen
// size in the query is ignored: the desktop's size is the bridge's decision. Signing out (or the
// person being disabled) closes their tunnels.
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import type { Logger } from 'pino';
import { WebSocketServer } from 'ws';
import { GuacStatus } from '@overlay-companion/guac';
import type { Access } from '../auth/access.js';
import type { TicketClaims } from '../auth/tickets.js';
import { DesktopReachError } from '../desktops/errors.js';
import type { TunnelConfig } from '../config.js';
import { rejectUpgrade } from '../http/upgradeRouter.js';
import { admitTunnel } from '../perimeter/socketTickets.js';
import type { DesktopSize, DesktopSizeProvider } from '../desktops/desktopSize.js';
import { DesktopConnections, type ConnectionObserver } from './desktopConnections.js';
import { GatewayPool } from './gatewayPool.js';
import type { GatewayPlaces } from './gatewayPlaces.js';
import { closeCodeFor, closeReasonFor } from './closeStatus.js';
import { SharedProbes } from './linkProbe.js';
import { TunnelRegistry } from './registry.js';
import type { CallReceipts } from './callReceipts.js';
import type { TunnelMetrics } from './tunnelSession.js';
import { TunnelSession, type TunnelTarget } from './tunnelSession.js';

export const TUNNEL_SUBPROTOCOL = 'guacamole';

// Browser → bridge messages are input events and small clipboard chunks.
const MAX_BROWSER_MESSAGE_BYTES = 1 << 20;

const CLOSE_GRACE_MS = 1000;

/**
 * Which desktops tunnels may reach and how: the desktop control's records in `serve`;
 * without it (tests of the tunnel alone) every ticket reaches the one configured `target`.
 */
export interface TunnelDesktops {
  /** The desktop a person's ticket is for (undefined: their default) and whether they may only look. */
  resolve(
    personId: string,
    desktopId: string | undefined,
  ): Promise<
    | { ok: true; desktopId: string; readOnly: boolean }
    | { ok: false; status: number; message: string }
  >;
  /** Where and how to reach a desktop; a local desktop is started here when it is not running. */
  target(desktopId: string): Promise<TunnelTarget>;
}

/** The desktop id of the one configured target when there are no desktop records. */
export const SINGLE_DESKTOP_ID = 'desktop';

export interface TunnelEndpointOptions {
  target: TunnelTarget;
  /** The desktop records; absent: every tunnel reaches `target`. */
  desktops?: TunnelDesktops | undefined;
  limits: TunnelConfig;
  logger: Logger;
  access: Access;
  /** Counts relayed frames and bytes (/metrics). */
  metrics?: TunnelMetrics | undefined;
  /** The operator's fixed desktop size (--desktop-size / OC_DESKTOP_SIZE); wins when set. */
  desktopSize?: DesktopSize | undefined;
  /** The person's wanted desktop size (their saved layout); undefined keeps the current size. */
  desiredDesktopSize?: DesktopSizeProvider | undefined;
  /** Told when each desktop's connection opens and ends (the recorder). */
  connectionObserver?: ConnectionObserver | undefined;
  /** Where the site's connections live in the gateway pool (the site's NATS); else memory. */
  gatewayPlaces?: GatewayPlaces | undefined;
  /** Receipt tokens of the calls this bridge relays (callReceipts.ts). */
  callReceipts?: CallReceipts | undefined;
}

export class TunnelEndpoint {
  readonly registry: TunnelRegistry;
  /** The gateway pool (--gateways), when the bridge has one. */
  readonly gatewayPool: GatewayPool | undefined;
  private readonly connections: DesktopConnections;
  private readonly desktops: TunnelDesktops;
  private readonly wss: WebSocketServer;
  /** One probe at a time per desktop server, whichever tunnels watch it (linkWatch.ts). */
  private readonly linkProbes = new SharedProbes();

  constructor(private readonly options: TunnelEndpointOptions) {
    this.desktops = options.desktops ?? {
      resolve: (_personId, desktopId) =>
        Promise.resolve({ ok: true, desktopId: desktopId ?? SINGLE_DESKTOP_ID, readOnly: false }),
      target: () => Promise.resolve(options.target),
    };
    const pool = options.limits.gatewayPool;
    this.gatewayPool =
      pool === undefined
        ? undefined
        : new GatewayPool(pool, options.logger.child({ part: 'gateway-pool' }));
    if (options.gatewayPlaces !== undefined) this.gatewayPool?.usePlaces(options.gatewayPlaces);
    this.connections = new DesktopConnections({
      pool: this.gatewayPool,
      target: (desktopId) => this.desktops.target(desktopId),
      handshakeTimeoutMs: options.limits.handshakeTimeoutMs,
      operatorSize: options.desktopSize,
      desiredDesktopSize: options.desiredDesktopSize,
      logger: options.logger,
      observer: options.connectionObserver,
    });
    this.registry = new TunnelRegistry(this.connections);
    this.wss = new WebSocketServer({
      noServer: true,
      perMessageDeflate: false, // frames are already PNG/JPEG; deflate would only add latency
      maxPayload: MAX_BROWSER_MESSAGE_BYTES,
      handleProtocols: (protocols) =>
        protocols.has(TUNNEL_SUBPROTOCOL) ? TUNNEL_SUBPROTOCOL : false,
    });
  }

  /** An UpgradeHandler for the router. */
  readonly handleUpgrade = (request: IncomingMessage, socket: Duplex, head: Buffer): void => {
    const { access } = this.options;
    const admitted = admitTunnel(access, request);
    if (!admitted.ok) return rejectUpgrade(socket, admitted.status, admitted.message);
    const { claims } = admitted;
    const offered = (request.headers['sec-websocket-protocol'] ?? '')
      .split(',')
      .map((p) => p.trim());
    if (!offered.includes(TUNNEL_SUBPROTOCOL)) {
      return rejectUpgrade(
        socket,
        400,
        `The tunnel needs the WebSocket subprotocol "${TUNNEL_SUBPROTOCOL}" (guacamole-common-js's WebSocketTunnel sends it).`,
      );
    }
    void this.desktops
      .resolve(claims.personId, claims.desktopId)
      .then(async (found) => {
        if (!found.ok) return rejectUpgrade(socket, found.status, found.message);
        // Resolved before the upgrade: a local desktop starts here, and the protocol is known.
        const target = await this.desktops.target(found.desktopId);
        if (socket.destroyed) return;
        this.accept(request, socket, head, claims, found.desktopId, found.readOnly, target);
      })
      .catch((err: unknown) => {
        this.options.logger.warn({ err }, 'could not open the desktop for a tunnel');
        if (err instanceof DesktopReachError && !socket.destroyed) {
          // The page cannot read an HTTP refusal of a WebSocket: accept, then close with the
          // words as the close reason, which the viewer shows ("the local desktop stopped and
          // is being started again…") instead of guessing that the bridge is away.
          this.wss.handleUpgrade(request, socket, head, (ws) =>
            ws.close(
              closeCodeFor(GuacStatus.UPSTREAM_UNAVAILABLE),
              closeReasonFor(GuacStatus.UPSTREAM_UNAVAILABLE, err.message),
            ),
          );
          return;
        }
        rejectUpgrade(
          socket,
          503,
          "The desktop could not be started or reached. Retry in a moment; if it persists, tell the bridge's operator (the bridge's log says why).",
        );
      });
  };

  private accept(
    request: IncomingMessage,
    socket: Duplex,
    head: Buffer,
    claims: TicketClaims,
    desktopId: string,
    readOnly: boolean,
    target: TunnelTarget,
  ): void {
    const { access } = this.options;
    this.wss.handleUpgrade(request, socket, head, (ws) => {
      const session = new TunnelSession(ws, {
        desktopId,
        readOnly,
        personId: claims.personId,
        callReceipts: this.options.callReceipts,
        protocol: target.connection.protocol,
        connections: this.connections,
        limits: this.options.limits,
        logger: this.options.logger,
        metrics: this.options.metrics,
        onStart: (s) => this.registry.add(s),
        onEnd: (s) => this.registry.delete(s.uuid),
        link: this.registry,
        linkProbes: this.linkProbes,
      });
      const unregister = access.sockets.add({
        personId: claims.personId,
        sessionIdHash: claims.sessionIdHash,
        kind: 'tunnel',
        close: (reason) => session.close(GuacStatus.CLIENT_UNAUTHORIZED, reason),
      });
      ws.once('close', unregister);
      void session.start();
    });
  }

  /**
   * Ends every tunnel (the browser sees `status` and `message`) and stops accepting new ones.
   * Browsers get a moment to answer the close frame; sockets still open after it are dropped so
   * shutdown never waits on a silent peer.
   */
  async close(
    status: number = GuacStatus.SESSION_CLOSED,
    message = 'The bridge is shutting down.',
  ): Promise<void> {
    this.registry.closeAll(status, message);
    this.gatewayPool?.close();
    this.wss.close();
    const deadline = Date.now() + CLOSE_GRACE_MS;
    while (this.wss.clients.size > 0 && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    for (const ws of this.wss.clients) ws.terminate();
  }
}
