// One remote-display session: creates a Guacamole client + tunnel per attempt, reports what
// happens to the connection store, and reconnects with jittered exponential backoff (counted from
// the start of an attempt that never connected, backoff.ts). It has no
// React and no DOM of its own: the factory that builds the real WebSocketTunnel/Client is passed
// in (guacBrowser.ts), so unit tests drive it with fakes and fake timers.
//
// guacamole-common-js 1.5.0's Client does not watch its tunnel: when the WebSocket closes, the
// client stays "connected". So this module listens to both the tunnel (open, unstable, closed,
// transport errors) and the client (first frame, server `error` instruction, disconnect).
//
// The bridge opens /tunnel only with a single-use ticket, so each attempt first asks `ticket()`
// for a fresh one and sends it in the connect data; a ticket that cannot be had is a failed
// attempt like any other (its message shown, retried with the same backoff).
import Guacamole from 'guacamole-common-js';
import { DEFAULT_BACKOFF, backoffDelay, remainingDelay, type BackoffPolicy } from './backoff.js';
import { isRetryable, isUpstream, statusText } from './guacStatus.js';
import type { ConnectionError, ConnectionEvents } from '../store/connection.js';

/** The part of Guacamole.Status the session reads. */
export interface StatusLike {
  code: number;
  message?: string | undefined;
}

/** The part of Guacamole.Tunnel the session uses (the real type, so the real tunnel fits). */
export type SessionTunnel = Pick<Guacamole.Tunnel, 'onstatechange' | 'onerror'>;

/** The part of Guacamole.Client the session uses. */
export type SessionClient = Pick<
  Guacamole.Client,
  'onstatechange' | 'onerror' | 'connect' | 'disconnect'
>;

/** What the browser tells the server about itself when connecting. Never resizes the desktop. */
export interface ConnectSize {
  width: number;
  height: number;
  dpi: number;
}

export interface GuacSessionOptions<C extends SessionClient> {
  /** Build a fresh tunnel and client for one attempt (they cannot be reused after closing). */
  open: () => { tunnel: SessionTunnel; client: C };
  /** Store actions that receive the connection's events. */
  events: ConnectionEvents;
  /** Size and dpi to announce in the handshake, read at each attempt. */
  size: () => ConnectSize;
  /**
   * A fresh single-use ticket for each attempt, sent as `ticket=` in the connect data. An error
   * fails the attempt with its message; a numeric `retryAfterMs` on it lengthens the wait.
   */
  ticket?: () => Promise<string>;
  /** Told about each new live client, and null when it goes away. */
  onClientChanged?: (client: C | null) => void;
  policy?: BackoffPolicy;
  random?: () => number;
}

/**
 * The handshake query: size and dpi only. The server decides where to connect; nothing else
 * the browser says may influence that.
 */
export function connectQuery(size: ConnectSize): string {
  const whole = (n: number) => String(Math.max(1, Math.round(Number.isFinite(n) ? n : 1)));
  return `width=${whole(size.width)}&height=${whole(size.height)}&dpi=${whole(size.dpi)}`;
}

/** The connect data of one attempt: size and dpi, and the ticket that lets the bridge open it. */
export function connectData(size: ConnectSize, ticket: string | null): string {
  const query = connectQuery(size);
  return ticket === null ? query : `${query}&ticket=${encodeURIComponent(ticket)}`;
}

/**
 * A ticket that could not be had, as a connection error: retryable (SERVER_BUSY when the bridge
 * asked to wait, SERVER_ERROR otherwise), with the ticket source's message.
 */
export function ticketFailure(thrown: unknown): { error: ConnectionError; retryAfterMs: number } {
  const retryAfter = (thrown as { retryAfterMs?: unknown } | null)?.retryAfterMs;
  const retryAfterMs = typeof retryAfter === 'number' && retryAfter > 0 ? retryAfter : 0;
  const message = thrown instanceof Error ? thrown.message : String(thrown);
  // status 0: the request never reached the bridge (net/api.ts).
  const unreachable = (thrown as { status?: unknown } | null)?.status === 0;
  return {
    error: {
      status:
        retryAfterMs > 0 ? Guacamole.Status.Code.SERVER_BUSY : Guacamole.Status.Code.SERVER_ERROR,
      message: message.trim() === '' ? 'Could not get a ticket for the remote desktop.' : message,
      ...(unreachable ? { away: 'bridge' as const } : {}),
    },
    retryAfterMs,
  };
}

/** Turn a Guacamole status into the error shown to the person. */
export function toConnectionError(status: StatusLike): ConnectionError {
  // The WebSocket tunnel passes the whole close reason as the message. The bridge writes it as
  // "<status> <explanation>" (so parseInt finds the status): drop the number, keep the words.
  // A reason that is only the number says nothing a person can use: describe the code instead.
  const code = String(status.code);
  let message = status.message?.trim() ?? '';
  if (message === code) message = '';
  else if (message.startsWith(`${code} `)) message = message.slice(code.length + 1).trim();
  return { status: status.code, message: message === '' ? statusText(status.code) : message };
}

/** A bridge that answered with an upstream status: the desktop behind it is what is away. */
function serverSide(status: StatusLike): 'desktop' | undefined {
  return isUpstream(status.code) ? 'desktop' : undefined;
}

function withAway(error: ConnectionError, away: 'bridge' | 'desktop' | undefined): ConnectionError {
  return away === undefined ? error : { ...error, away };
}

/** The status carries the server's own words ("<code> <explanation>"), not just a code. */
function saidWhy(status: StatusLike): boolean {
  const message = status.message?.trim() ?? '';
  return message !== '' && message !== String(status.code);
}

const CLOSED_CLEANLY: ConnectionError = {
  status: Guacamole.Status.Code.SUCCESS,
  message: 'The server closed the connection.',
};

interface Attempt<C> {
  tunnel: SessionTunnel;
  client: C;
  ended: boolean;
  error: ConnectionError | null;
  stableTimer: ReturnType<typeof setTimeout> | undefined;
}

export class GuacSession<C extends SessionClient> {
  readonly #options: GuacSessionOptions<C>;
  readonly #policy: BackoffPolicy;
  #attempt: Attempt<C> | null = null;
  /** Failures since the last stable connection; drives the backoff. */
  #failures = 0;
  #retryTimer: ReturnType<typeof setTimeout> | undefined;
  #running = false;
  /** The last attempt ended with a status that is not retried; waiting for the person. */
  #gaveUp = false;
  /** The ticket request of the attempt in progress; a settled stale one is ignored. */
  #pendingTicket: object | null = null;
  /** When the attempt in progress began (its ticket request), and whether it ever connected. */
  #attemptStartedAt = 0;
  #attemptConnected = false;

  constructor(options: GuacSessionOptions<C>) {
    this.#options = options;
    this.#policy = options.policy ?? DEFAULT_BACKOFF;
  }

  /** The live client, or null between attempts. */
  get client(): C | null {
    const attempt = this.#attempt;
    return attempt && !attempt.ended ? attempt.client : null;
  }

  start(): void {
    if (this.#running) return;
    this.#running = true;
    this.#failures = 0;
    this.#begin();
  }

  /** Disconnect on purpose; no reconnect until start() is called again. */
  stop(): void {
    if (!this.#running) return;
    this.#running = false;
    clearTimeout(this.#retryTimer);
    this.#retryTimer = undefined;
    this.#pendingTicket = null;
    if (this.#attempt && !this.#attempt.ended) this.#teardown(this.#attempt);
    this.#options.events.sessionStopped();
  }

  /** Skip the remaining wait (reconnecting) or try again after a fatal error (failed). */
  reconnectNow(): void {
    // Nothing to skip while an attempt is asking for its ticket.
    if (this.client || this.#pendingTicket !== null) return;
    if (!this.#running) {
      this.start();
      return;
    }
    clearTimeout(this.#retryTimer);
    this.#retryTimer = undefined;
    // After a fatal error the person asked for a fresh start; while merely waiting, keep the
    // failure count so a still-broken server does not get hammered.
    if (this.#gaveUp) this.#failures = 0;
    this.#begin();
  }

  #begin(): void {
    this.#gaveUp = false;
    this.#attemptStartedAt = Date.now();
    this.#attemptConnected = false;
    this.#options.events.connectAttempted(this.#failures);
    const fetchTicket = this.#options.ticket;
    if (fetchTicket === undefined) {
      this.#open(null);
      return;
    }
    const pending = {};
    this.#pendingTicket = pending;
    // A ticket source that throws instead of rejecting fails the attempt the same way.
    const ticket = new Promise<string>((resolve) => resolve(fetchTicket()));
    ticket.then(
      (value) => {
        if (this.#pendingTicket !== pending) return;
        this.#pendingTicket = null;
        this.#open(value);
      },
      (thrown: unknown) => {
        if (this.#pendingTicket !== pending) return;
        this.#pendingTicket = null;
        const { error, retryAfterMs } = ticketFailure(thrown);
        this.#failed(error, retryAfterMs);
      },
    );
  }

  /** Build the attempt's tunnel and client and start the handshake. */
  #open(ticket: string | null): void {
    const { events } = this.#options;
    const { tunnel, client } = this.#options.open();
    const attempt: Attempt<C> = {
      tunnel,
      client,
      ended: false,
      error: null,
      stableTimer: undefined,
    };
    this.#attempt = attempt;

    tunnel.onstatechange = (state) => {
      if (attempt.ended) return;
      switch (state) {
        case Guacamole.Tunnel.State.OPEN:
          events.tunnelStabilityChanged(false);
          events.tunnelOpened();
          break;
        case Guacamole.Tunnel.State.UNSTABLE:
          events.tunnelStabilityChanged(true);
          break;
        case Guacamole.Tunnel.State.CLOSED:
          this.#end(attempt);
          break;
        default:
          break;
      }
    };
    // The first error wins: the server's `error` instruction arrives before the socket closes
    // and carries the message worth showing; the close that follows only repeats the code. A
    // server instruction, or a socket the bridge closed with its reason, means the bridge is
    // up (the desktop behind it is what failed); a socket that failed without a word means the
    // bridge itself went away.
    tunnel.onerror = (status) => {
      attempt.error ??= withAway(
        toConnectionError(status),
        saidWhy(status) ? serverSide(status) : 'bridge',
      );
    };
    client.onerror = (status) => {
      attempt.error ??= withAway(toConnectionError(status), serverSide(status));
    };
    client.onstatechange = (state) => {
      if (attempt.ended) return;
      if (state === Guacamole.Client.State.CONNECTED) {
        this.#attemptConnected = true;
        events.firstFrameReceived(Date.now());
        attempt.stableTimer = setTimeout(() => {
          this.#failures = 0;
        }, this.#policy.stableAfterMs);
      } else if (state === Guacamole.Client.State.DISCONNECTED) {
        this.#end(attempt);
      }
    };

    this.#options.onClientChanged?.(client);
    try {
      client.connect(connectData(this.#options.size(), ticket));
    } catch (thrown) {
      // Client.connect rethrows a Guacamole.Status when the tunnel cannot even start.
      const status = thrown as Partial<StatusLike> | null;
      attempt.error ??=
        typeof status?.code === 'number'
          ? toConnectionError(status as StatusLike)
          : {
              status: Guacamole.Status.Code.SERVER_ERROR,
              message: `Could not open the tunnel: ${String(thrown)}`,
            };
      this.#end(attempt);
    }
  }

  /** Release one attempt's client and tunnel without reporting anything. */
  #teardown(attempt: Attempt<C>): void {
    attempt.ended = true;
    clearTimeout(attempt.stableTimer);
    attempt.tunnel.onstatechange = null;
    attempt.tunnel.onerror = null;
    attempt.client.onstatechange = null;
    attempt.client.onerror = null;
    // Stops the client's keep-alive timer; harmless when the tunnel is already closed.
    attempt.client.disconnect();
    this.#options.onClientChanged?.(null);
  }

  #end(attempt: Attempt<C>): void {
    if (attempt.ended || attempt !== this.#attempt) return;
    this.#teardown(attempt);
    if (!this.#running) return;
    this.#failed(attempt.error ?? CLOSED_CLEANLY, 0);
  }

  /** Report why an attempt ended and schedule the next one (or wait for the person). */
  #failed(error: ConnectionError, minDelayMs: number): void {
    const { events } = this.#options;
    events.errorReported(error);
    if (!isRetryable(error.status)) {
      this.#gaveUp = true;
      events.connectionFailed(null);
      return;
    }
    const backoff = backoffDelay(this.#failures, this.#policy, this.#options.random);
    // An attempt that never connected has waited as long as it took (backoff.ts); the bridge's
    // own retry-after is honoured whole.
    const delay = Math.max(
      minDelayMs,
      this.#attemptConnected
        ? backoff
        : remainingDelay(backoff, Date.now() - this.#attemptStartedAt),
    );
    this.#failures += 1;
    events.connectionFailed(Date.now() + delay);
    this.#retryTimer = setTimeout(() => {
      this.#retryTimer = undefined;
      this.#begin();
    }, delay);
  }
}
