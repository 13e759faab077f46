// The `/tunnel` WebSocket endpoint: accepts upgrades that carry a single-use tunnel ticket (a
// signed-in person's, for this socket kind) and ask for the `guacamole` subprotocol, caps each
// person's open tunnels, and starts one TunnelSession per socket; a person's tunnels share one
// desktop connection (personConnections.ts). The browser's screen size in the query is ignored:
// the desktop's size is the bridge's decision. Signing out (or the person being disabled)
// closes their tunnels.
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import type { Logger } from 'pino';
import { WebSocketServer } from 'ws';
import { GuacStatus } from '@overlay-companion/guac';
import type { Access } from '../auth/access.js';
import type { TunnelConfig } from '../config.js';
import { rejectUpgrade, ticketFrom } from '../http/upgradeRouter.js';
import type { DesktopSize, DesktopSizeProvider } from './desktopSize.js';
import { PersonConnections } from './personConnections.js';
import { TunnelRegistry } from './registry.js';
import type { TunnelMetrics } from './tunnelSession.js';
import { TunnelSession, type TunnelTarget } from './tunnelSession.js';

export const TUNNEL_SUBPROTOCOL = 'guacamole';

// Browser → bridge messages are input events and small clipboard chunks.
const MAX_BROWSER_MESSAGE_BYTES = 1 << 20;

const CLOSE_GRACE_MS = 1000;

/** Desktop connections one person may hold open (several monitors, plus reconnect overlap). */
export const MAX_TUNNELS_PER_PERSON = 16;

export interface TunnelEndpointOptions {
  target: TunnelTarget;
  limits: TunnelConfig;
  logger: Logger;
  access: Access;
  /** Counts relayed frames and bytes (/metrics). */
  metrics?: TunnelMetrics | undefined;
  /** The operator's fixed desktop size (--desktop-size / OC_DESKTOP_SIZE); wins when set. */
  desktopSize?: DesktopSize | undefined;
  /** The person's wanted desktop size (their saved layout); undefined keeps the current size. */
  desiredDesktopSize?: DesktopSizeProvider | undefined;
}

export class TunnelEndpoint {
  readonly registry: TunnelRegistry;
  private readonly connections: PersonConnections;
  private readonly wss: WebSocketServer;

  constructor(private readonly options: TunnelEndpointOptions) {
    this.connections = new PersonConnections({
      guacd: options.target.guacd,
      connection: options.target.connection,
      handshakeTimeoutMs: options.limits.handshakeTimeoutMs,
      operatorSize: options.desktopSize,
      desiredDesktopSize: options.desiredDesktopSize,
      logger: options.logger,
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
    const claims = access.tickets.consume(ticketFrom(request), 'tunnel');
    if (claims === undefined) {
      return rejectUpgrade(
        socket,
        401,
        'Missing, used or expired tunnel ticket. Sign in, get a fresh one with POST /api/tickets {"socket":"tunnel"} and connect within 30 seconds; each ticket works once.',
      );
    }
    const open = access.sockets.count(claims.personId, 'tunnel');
    if (open >= MAX_TUNNELS_PER_PERSON) {
      return rejectUpgrade(
        socket,
        429,
        `You already have ${open} desktop connections open (limit ${MAX_TUNNELS_PER_PERSON}). Close a viewer window, then retry in a few seconds.`,
      );
    }
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
    this.wss.handleUpgrade(request, socket, head, (ws) => {
      const session = new TunnelSession(ws, {
        personId: claims.personId,
        protocol: this.options.target.connection.protocol,
        connections: this.connections,
        limits: this.options.limits,
        logger: this.options.logger,
        metrics: this.options.metrics,
        onStart: (s) => this.registry.add(s),
        onEnd: (s) => this.registry.delete(s.uuid),
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
  };

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
    this.wss.close();
    const deadline = Date.now() + CLOSE_GRACE_MS;
    while (this.wss.clients.size > 0 && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    for (const ws of this.wss.clients) ws.terminate();
  }
}
