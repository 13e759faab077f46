// GuacSession against a fake tunnel/client pair (the real ones need a browser WebSocket; the
// e2e test covers them) with fake timers: state reported to the real store, backoff between
// attempts, reset after a stable connection, fatal statuses, stop and reconnect-now, and the
// single-use ticket each attempt asks for before it opens the tunnel.
import type Guacamole from 'guacamole-common-js';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createConnectionStore, connectionEvents } from '../store/connection.js';
import {
  GuacSession,
  connectData,
  connectQuery,
  ticketFailure,
  toConnectionError,
  type SessionClient,
  type SessionTunnel,
  type StatusLike,
} from './guacSession.js';

// Numeric states of guacamole-common-js 1.5.0 (Tunnel.State / Client.State).
const TUNNEL = { OPEN: 1, CLOSED: 2, UNSTABLE: 3 } as const;
const CLIENT = {
  CONNECTING: 1,
  WAITING: 2,
  CONNECTED: 3,
  DISCONNECTING: 4,
  DISCONNECTED: 5,
} as const;

/** Fake of Guacamole.WebSocketTunnel: the test decides when it opens and closes. */
class FakeTunnel implements SessionTunnel {
  onstatechange: ((state: Guacamole.Tunnel.State) => void) | null = null;
  onerror: ((status: Guacamole.Status) => void) | null = null;
  closed = false;
  open() {
    this.onstatechange?.(TUNNEL.OPEN);
  }
  close(status?: StatusLike) {
    if (this.closed) return;
    this.closed = true;
    // Only code and message are read, so a plain object stands in for Guacamole.Status.
    if (status && status.code !== 0) this.onerror?.(status as Guacamole.Status);
    this.onstatechange?.(TUNNEL.CLOSED);
  }
}

/** Fake of Guacamole.Client that behaves like 1.5.0's around connect, error and disconnect. */
class FakeClient implements SessionClient {
  onstatechange: ((state: Guacamole.Client.State) => void) | null = null;
  onerror: ((status: Guacamole.Status) => void) | null = null;
  connectData: string[] = [];
  sizesSent: [number, number][] = [];
  state: Guacamole.Client.State = 0;
  constructor(readonly tunnel: FakeTunnel) {}
  #set(state: Guacamole.Client.State) {
    this.state = state;
    this.onstatechange?.(state);
  }
  connect(data?: string) {
    this.connectData.push(data ?? '');
    this.#set(CLIENT.CONNECTING);
    this.#set(CLIENT.WAITING);
  }
  firstFrame() {
    this.#set(CLIENT.CONNECTED);
  }
  /** The server's `error` instruction: onerror, then disconnect (as Client.js does). */
  serverError(message: string, code: number) {
    this.onerror?.({ code, message } as Guacamole.Status);
    this.disconnect();
  }
  sendSize(width: number, height: number) {
    this.sizesSent.push([width, height]);
  }
  disconnect() {
    if (this.state === CLIENT.DISCONNECTED || this.state === CLIENT.DISCONNECTING) return;
    this.#set(CLIENT.DISCONNECTING);
    this.tunnel.close({ code: 0, message: 'Manually closed.' });
    this.#set(CLIENT.DISCONNECTED);
  }
}

function setup(random = () => 0.5, ticket?: () => Promise<string>) {
  const store = createConnectionStore();
  const made: FakeClient[] = [];
  const published: (FakeClient | null)[] = [];
  const session = new GuacSession<FakeClient>({
    ...(ticket ? { ticket } : {}),
    open: () => {
      const tunnel = new FakeTunnel();
      const client = new FakeClient(tunnel);
      made.push(client);
      return { tunnel, client };
    },
    events: connectionEvents(store),
    size: () => ({ width: 1280.4, height: 760, dpi: 96 }),
    onClientChanged: (c) => published.push(c),
    random,
  });
  const last = () => {
    const c = made.at(-1);
    if (!c) throw new Error('no client made yet');
    return c;
  };
  return { store, made, published, session, last };
}

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
});

describe('GuacSession', () => {
  it('walks connecting → waiting → connected and sends only size and dpi', () => {
    const { store, session, last, published } = setup();
    session.start();
    expect(store.getState().phase).toBe('connecting');
    expect(last().connectData).toEqual(['width=1280&height=760&dpi=96']);
    expect(published).toEqual([last()]);
    last().tunnel.open();
    expect(store.getState().phase).toBe('waiting');
    last().firstFrame();
    expect(store.getState()).toMatchObject({ phase: 'connected', lastError: null, attempt: 0 });
    expect(session.client).toBe(last());
    // The browser's size must never resize the shared desktop by itself.
    expect(last().sizesSent).toEqual([]);
  });

  it('blames the desktop only for upstream statuses: a refused request is nobody being away', () => {
    const { store, session, last } = setup();
    session.start();
    last().tunnel.open();
    last().serverError('Malformed instruction from the browser', 768);
    expect(store.getState().lastError).toEqual({
      message: 'Malformed instruction from the browser',
      status: 768,
    });
  });

  it('reports the server message and status, then retries with growing delays', () => {
    const { store, session, made, last, published } = setup();
    session.start();
    last().tunnel.open();
    last().serverError('Desktop is not running', 519);
    const s = store.getState();
    expect(s.phase).toBe('reconnecting');
    // The server said it: the bridge is up, the desktop behind it is what is away.
    expect(s.lastError).toEqual({
      message: 'Desktop is not running',
      status: 519,
      away: 'desktop',
    });
    expect(s.retryAt).toBe(Date.now() + 500);
    expect(published.at(-1)).toBeNull();
    expect(session.client).toBeNull();

    vi.advanceTimersByTime(499);
    expect(made).toHaveLength(1);
    vi.advanceTimersByTime(1);
    expect(made).toHaveLength(2);
    expect(store.getState()).toMatchObject({ phase: 'connecting', attempt: 1 });

    // A WebSocket that fails to open: tunnel error with only a code, then closed.
    last().tunnel.close({ code: 519, message: '519' });
    // No server instruction, just a socket that failed: the bridge itself is away.
    expect(store.getState().lastError).toEqual({
      message: 'Remote desktop not reachable',
      status: 519,
      away: 'bridge',
    });
    expect(store.getState().retryAt).toBe(Date.now() + 1000);
    vi.advanceTimersByTime(1000);
    last().tunnel.close({ code: 514 });
    expect(store.getState().retryAt).toBe(Date.now() + 2000);
    vi.advanceTimersByTime(2000);
    expect(made).toHaveLength(4);
    expect(store.getState().attempt).toBe(3);
  });

  it('counts the wait from the start of an attempt that never connected: one that hung starts the next at once', () => {
    const { store, session, made, last } = setup();
    session.start();
    last().tunnel.open();
    last().firstFrame();
    vi.advanceTimersByTime(20_000);
    // The link stalls: the bridge ends the connected tunnel with 514. A connection that was up
    // waits the whole delay (viewers that lost the bridge together must not return together).
    last().serverError('The desktop stopped answering', 514);
    expect(store.getState().retryAt).toBe(Date.now() + 500);
    vi.advanceTimersByTime(500);
    expect(made).toHaveLength(2);
    // The next attempt opens but hangs in the stalled link until the bridge gives up on it.
    last().tunnel.open();
    vi.advanceTimersByTime(6_500);
    last().serverError('The desktop stopped answering', 514);
    // It took longer than its 1 s of back-off: the next attempt starts at once.
    expect(store.getState().retryAt).toBe(Date.now());
    vi.advanceTimersByTime(0);
    expect(made).toHaveLength(3);
    expect(store.getState()).toMatchObject({ phase: 'connecting', attempt: 2 });
    // One that fails after 300 ms of its 2 s waits the other 1.7 s.
    vi.advanceTimersByTime(300);
    last().tunnel.close({ code: 519 });
    expect(store.getState().retryAt).toBe(Date.now() + 1_700);
    vi.advanceTimersByTime(1_699);
    expect(made).toHaveLength(3);
    vi.advanceTimersByTime(1);
    expect(made).toHaveLength(4);
  });

  it("honours the bridge's retry-after whole, however long the ticket request took", async () => {
    let calls = 0;
    const ticket = () =>
      new Promise<string>((_resolve, reject) => {
        calls += 1;
        setTimeout(
          () => reject(Object.assign(new Error('Too many viewers'), { retryAfterMs: 3_000 })),
          5_000,
        );
      });
    const { store, session } = setup(() => 0.5, ticket);
    session.start();
    await vi.advanceTimersByTimeAsync(5_000);
    expect(store.getState().retryAt).toBe(Date.now() + 3_000);
    await vi.advanceTimersByTimeAsync(2_999);
    expect(calls).toBe(1);
    await vi.advanceTimersByTimeAsync(1);
    expect(calls).toBe(2);
    session.stop();
  });

  it('applies jitter from the random source', () => {
    const { store, session, last } = setup(() => 0);
    session.start();
    last().tunnel.close({ code: 519 });
    expect(store.getState().retryAt).toBe(Date.now() + 350);
  });

  it('resets the backoff only after the connection stayed up long enough', () => {
    const { store, session, last } = setup();
    session.start();
    last().tunnel.close({ code: 519 });
    vi.advanceTimersByTime(500);
    last().tunnel.close({ code: 519 });
    vi.advanceTimersByTime(1000);
    // Third attempt connects but drops after 2 s: not stable, backoff keeps growing.
    last().tunnel.open();
    last().firstFrame();
    vi.advanceTimersByTime(2000);
    last().tunnel.close({ code: 0x0202 });
    expect(store.getState().retryAt).toBe(Date.now() + 2000);
    vi.advanceTimersByTime(2000);
    // Fourth attempt stays up 10 s: stable, so the next drop retries after the base delay.
    last().tunnel.open();
    last().firstFrame();
    vi.advanceTimersByTime(10_000);
    last().tunnel.close();
    expect(store.getState()).toMatchObject({
      phase: 'reconnecting',
      retryAt: Date.now() + 500,
      lastError: { status: 0, message: 'The server closed the connection.' },
    });
  });

  it('stops retrying on statuses a retry cannot fix and waits for the person', () => {
    const { store, session, made, last } = setup();
    session.start();
    last().tunnel.open();
    last().serverError('Sign in first', 769);
    expect(store.getState()).toMatchObject({
      phase: 'failed',
      retryAt: null,
      lastError: { status: 769 },
    });
    vi.advanceTimersByTime(60_000);
    expect(made).toHaveLength(1);
    session.reconnectNow();
    expect(made).toHaveLength(2);
    expect(store.getState()).toMatchObject({ phase: 'connecting', attempt: 0 });
  });

  it('reconnectNow skips the wait but keeps the backoff count', () => {
    const { store, session, made, last } = setup();
    session.start();
    last().tunnel.close({ code: 519 });
    session.reconnectNow();
    expect(made).toHaveLength(2);
    expect(store.getState().attempt).toBe(1);
    // The timer of the skipped wait must not start a third attempt.
    vi.advanceTimersByTime(500);
    expect(made).toHaveLength(2);
    // Calling it with a live client does nothing.
    session.reconnectNow();
    expect(made).toHaveLength(2);
  });

  it('stop() disconnects, cancels a pending retry and ignores late events', () => {
    const { store, session, made, last } = setup();
    session.start();
    const first = last();
    first.tunnel.open();
    first.firstFrame();
    session.stop();
    expect(first.state).toBe(CLIENT.DISCONNECTED);
    expect(first.tunnel.closed).toBe(true);
    expect(store.getState().phase).toBe('idle');
    vi.advanceTimersByTime(60_000);
    expect(made).toHaveLength(1);

    session.start();
    last().tunnel.close({ code: 519 });
    session.stop();
    vi.advanceTimersByTime(60_000);
    expect(made).toHaveLength(2);
    expect(store.getState().phase).toBe('idle');
  });

  it('reports a tunnel that cannot even start', () => {
    const store = createConnectionStore();
    const session = new GuacSession({
      open: () => {
        const tunnel = new FakeTunnel();
        const client = new FakeClient(tunnel);
        client.connect = () => {
          // The real Client rethrows a Guacamole.Status; an Error with a code has the same shape.
          throw Object.assign(new Error('boom'), { code: 512 });
        };
        return { tunnel, client };
      },
      events: connectionEvents(store),
      size: () => ({ width: 10, height: 10, dpi: 96 }),
    });
    session.start();
    expect(store.getState()).toMatchObject({
      phase: 'reconnecting',
      lastError: { status: 512, message: 'boom' },
    });
    session.stop();
  });
});

/** Fake ticket source: each call is a request the test answers (or fails) when it wants. */
function fakeTickets() {
  const requests: { resolve: (ticket: string) => void; reject: (error: unknown) => void }[] = [];
  const source = () =>
    new Promise<string>((resolve, reject) => {
      requests.push({ resolve, reject });
    });
  const request = (n: number) => {
    const r = requests[n];
    if (!r) throw new Error(`no ticket request #${n} (only ${requests.length})`);
    return r;
  };
  return { requests, source, request };
}

describe('GuacSession tickets', () => {
  it('asks for a fresh ticket before each attempt and sends it with the size', async () => {
    const tickets = fakeTickets();
    const { store, session, made, last } = setup(() => 0.5, tickets.source);
    session.start();
    // No tunnel before the ticket: the bridge refuses a tunnel without one.
    expect(made).toHaveLength(0);
    expect(store.getState().phase).toBe('connecting');
    expect(tickets.requests).toHaveLength(1);
    tickets.request(0).resolve('t/1+&=');
    await vi.advanceTimersByTimeAsync(0);
    expect(made).toHaveLength(1);
    expect(last().connectData).toEqual(['width=1280&height=760&dpi=96&ticket=t%2F1%2B%26%3D']);

    last().tunnel.close({ code: 519 });
    await vi.advanceTimersByTimeAsync(500);
    // A ticket is single-use: the retry asks for a new one.
    expect(tickets.requests).toHaveLength(2);
    expect(made).toHaveLength(1);
    tickets.request(1).resolve('t2');
    await vi.advanceTimersByTimeAsync(0);
    expect(made).toHaveLength(2);
    expect(last().connectData).toEqual(['width=1280&height=760&dpi=96&ticket=t2']);
    last().tunnel.open();
    last().firstFrame();
    expect(store.getState().phase).toBe('connected');
  });

  it('a failed ticket request is a failed attempt: its message shown, retried with backoff', async () => {
    const tickets = fakeTickets();
    const { store, session, made, published } = setup(() => 0.5, tickets.source);
    session.start();
    tickets
      .request(0)
      .reject(new Error('Could not get a ticket to connect the remote desktop: Sign in again.'));
    await vi.advanceTimersByTimeAsync(0);
    expect(made).toHaveLength(0);
    expect(published).toEqual([]);
    expect(store.getState()).toMatchObject({
      phase: 'reconnecting',
      retryAt: Date.now() + 500,
      lastError: {
        status: 512,
        message: 'Could not get a ticket to connect the remote desktop: Sign in again.',
      },
    });
    await vi.advanceTimersByTimeAsync(499);
    expect(tickets.requests).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(1);
    expect(tickets.requests).toHaveLength(2);
    expect(store.getState()).toMatchObject({ phase: 'connecting', attempt: 1 });
    // The backoff keeps growing across ticket failures.
    tickets.request(1).reject(new Error('still down'));
    await vi.advanceTimersByTimeAsync(0);
    expect(store.getState().retryAt).toBe(Date.now() + 1000);
  });

  it('waits at least as long as the bridge asked (retryAfterMs on the error)', async () => {
    const tickets = fakeTickets();
    const { store, session } = setup(() => 0.5, tickets.source);
    session.start();
    tickets
      .request(0)
      .reject(Object.assign(new Error('Too many tickets.'), { retryAfterMs: 7000 }));
    await vi.advanceTimersByTimeAsync(0);
    expect(store.getState()).toMatchObject({
      phase: 'reconnecting',
      retryAt: Date.now() + 7000,
      lastError: { status: 513, message: 'Too many tickets.' },
    });
  });

  it('a ticket source that throws at once fails the attempt the same way', async () => {
    const { store, session } = setup(
      () => 0.5,
      () => {
        throw new Error('no fetch here');
      },
    );
    session.start();
    await vi.advanceTimersByTimeAsync(0);
    expect(store.getState()).toMatchObject({
      phase: 'reconnecting',
      lastError: { message: 'no fetch here' },
    });
    session.stop();
  });

  it('stop() during a ticket request ignores its answer; reconnectNow does not ask twice', async () => {
    const tickets = fakeTickets();
    const { store, session, made } = setup(() => 0.5, tickets.source);
    session.start();
    session.reconnectNow();
    expect(tickets.requests).toHaveLength(1);
    session.stop();
    tickets.request(0).resolve('late');
    await vi.advanceTimersByTimeAsync(60_000);
    expect(made).toHaveLength(0);
    expect(store.getState().phase).toBe('idle');

    // Stopped and started again while a request is out: the stale one settling changes nothing.
    session.start();
    session.stop();
    session.start();
    expect(tickets.requests).toHaveLength(3);
    tickets.request(1).reject(new Error('stale'));
    await vi.advanceTimersByTimeAsync(0);
    expect(store.getState()).toMatchObject({ phase: 'connecting', lastError: null });
    tickets.request(2).resolve('fresh');
    await vi.advanceTimersByTimeAsync(0);
    expect(made).toHaveLength(1);
    expect(made[0]?.connectData).toEqual(['width=1280&height=760&dpi=96&ticket=fresh']);
    session.stop();
  });
});

describe('connectQuery / toConnectionError', () => {
  it('adds the ticket, encoded, only when there is one', () => {
    const size = { width: 800, height: 600, dpi: 96 };
    expect(connectData(size, null)).toBe('width=800&height=600&dpi=96');
    expect(connectData(size, 'a b&c')).toBe('width=800&height=600&dpi=96&ticket=a%20b%26c');
  });

  it('describes ticket failures as retryable errors', () => {
    expect(ticketFailure(new Error(' '))).toEqual({
      error: { status: 512, message: 'Could not get a ticket for the remote desktop.' },
      retryAfterMs: 0,
    });
    expect(ticketFailure('plain')).toEqual({
      error: { status: 512, message: 'plain' },
      retryAfterMs: 0,
    });
  });

  it('rounds and clamps the announced size', () => {
    expect(connectQuery({ width: 0, height: Number.NaN, dpi: 191.6 })).toBe(
      'width=1&height=1&dpi=192',
    );
  });

  it('keeps a real server message and replaces a bare code', () => {
    expect(toConnectionError({ code: 512, message: 'gateway crashed' })).toEqual({
      status: 512,
      message: 'gateway crashed',
    });
    expect(toConnectionError({ code: 513, message: ' 513 ' })).toEqual({
      status: 513,
      message: 'Server busy',
    });
    expect(toConnectionError({ code: 4242 })).toEqual({
      status: 4242,
      message: 'Guacamole status 4242',
    });
  });

  it('drops the status number the bridge puts in front of its close reason', () => {
    expect(toConnectionError({ code: 523, message: '523 The bridge is shutting down.' })).toEqual({
      status: 523,
      message: 'The bridge is shutting down.',
    });
    // Only the matching code is stripped; other leading numbers are part of the message.
    expect(toConnectionError({ code: 512, message: '5 retries failed' }).message).toBe(
      '5 retries failed',
    );
  });
});
