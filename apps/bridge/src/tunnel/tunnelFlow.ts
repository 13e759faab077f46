// Flow control of one tunnel (tunnelSession.ts), both ways, so that neither a slow browser nor a
// slow desktop server makes the bridge buffer without bound. To the browser: while its WebSocket
// holds more than highWaterBytes unsent, guacd's socket is not read, so frames queue in guacd or
// the gateway (which coalesce them) instead of in the bridge's memory, until the WebSocket is
// down to lowWaterBytes. To the desktop: while guacd's socket takes no more, the browser's
// WebSocket is not read until the socket drains. Also counts the bytes each way for /metrics.
import type { Socket } from 'node:net';
import type { Logger } from 'pino';
import { WebSocket } from 'ws';
import type { GuacConnection } from '@overlay-companion/guac';
import type { TunnelConfig } from '../config.js';

export interface TunnelFlowOptions {
  limits: Pick<TunnelConfig, 'highWaterBytes' | 'lowWaterBytes'>;
  metrics?:
    { tunnelTraffic(direction: 'to_browser' | 'to_desktop', bytes: number): void } | undefined;
  log: Logger;
  /** Whether the tunnel has ended: nothing is resumed after that. */
  ended(): boolean;
}

export class TunnelFlow {
  private socket: Socket | undefined;
  private conn: GuacConnection | undefined;
  /** guacd's socket is not read: the browser is behind. */
  private upstreamPaused = false;
  /** The browser's WebSocket is not read: guacd is behind. */
  private browserPaused = false;

  constructor(
    private readonly ws: WebSocket,
    private readonly options: TunnelFlowOptions,
  ) {}

  /** The connection to the desktop server is open (or joined). */
  connected(socket: Socket, conn: GuacConnection): void {
    this.socket = socket;
    this.conn = conn;
  }

  /** Sends encoded instructions to the desktop server, pausing the browser while it lags. */
  toDesktop(encoded: string): void {
    const conn = this.conn;
    if (!conn || conn.isClosed) return;
    this.options.metrics?.tunnelTraffic('to_desktop', Buffer.byteLength(encoded));
    if (!conn.sendRaw(encoded) && !this.browserPaused && !conn.isClosed) {
      // guacd is not keeping up with input: stop reading the browser until it drains.
      this.browserPaused = true;
      this.ws.pause();
      this.socket?.once('drain', () => {
        this.browserPaused = false;
        if (!this.options.ended()) this.ws.resume();
      });
    }
  }

  /** Sends one message to the browser, pausing guacd's socket while the browser lags. */
  toBrowser(message: string): void {
    if (this.ws.readyState !== WebSocket.OPEN) return;
    this.options.metrics?.tunnelTraffic('to_browser', Buffer.byteLength(message));
    this.ws.send(message, (err) => {
      if (!err) this.maybeResumeUpstream();
    });
    if (!this.upstreamPaused && this.ws.bufferedAmount > this.options.limits.highWaterBytes) {
      // The browser (or its network) is slower than the desktop: stop reading guacd so frames
      // queue in guacd/the gateway, which coalesce them, instead of in our memory.
      this.upstreamPaused = true;
      this.socket?.pause();
      this.options.log.debug(
        { buffered: this.ws.bufferedAmount },
        'paused guacd reads for a slow browser',
      );
    }
  }

  /** The tunnel is ending: the browser is read again if guacd held it back. */
  ending(): void {
    if (this.browserPaused) {
      // Reading the browser was paused for a guacd that is now gone (its 'drain' never comes):
      // resume, or the browser's answer to our close frame is never read and its socket hangs
      // until ws's 30 s close timeout. Messages that still arrive are dropped (ended).
      this.browserPaused = false;
      this.ws.resume();
    }
  }

  private maybeResumeUpstream(): void {
    if (!this.upstreamPaused || this.ws.bufferedAmount > this.options.limits.lowWaterBytes) return;
    this.upstreamPaused = false;
    if (!this.options.ended()) this.socket?.resume();
  }
}
