// GuacSession against a fake tunnel/client pair (the real ones need a browser WebSocket; the
// e2e test covers them) with fake timers: state reported to the real store, backoff between
// attempts, reset after a stable connection, fatal statuses, stop and reconnect-now.
import type Guacamole from 'guacamole-common-js';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createConnectionStore, connectionEvents } from '../store/connection.js';
import {
  GuacSession,
  connectQuery,
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

function setup(random = () => 0.5) {
  const store = createConnectionStore();
  const made: FakeClient[] = [];
  const published: (FakeClient | null)[] = [];
  const session = new GuacSession<FakeClient>({
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

  it('reports the server message and status, then retries with growing delays', () => {
    const { store, session, made, last, published } = setup();
    session.start();
    last().tunnel.open();
    last().serverError('Desktop is not running', 519);
    const s = store.getState();
    expect(s.phase).toBe('reconnecting');
    expect(s.lastError).toEqual({ message: 'Desktop is not running', status: 519 });
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
    expect(store.getState().lastError).toEqual({
      message: 'Remote desktop not reachable',
      status: 519,
    });
    expect(store.getState().retryAt).toBe(Date.now() + 1000);
    vi.advanceTimersByTime(1000);
    last().tunnel.close({ code: 514 });
    expect(store.getState().retryAt).toBe(Date.now() + 2000);
    vi.advanceTimersByTime(2000);
    expect(made).toHaveLength(4);
    expect(store.getState().attempt).toBe(3);
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

describe('connectQuery / toConnectionError', () => {
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
