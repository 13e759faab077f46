// Connection state of the remote display, as the person sees it in the status bar. Data plus
// actions named after the events the Guacamole session reports; the session (guacSession.ts)
// is the only writer. Built on zustand's vanilla store so it runs (and is tested) without a DOM.
import { createStore, type StoreApi } from 'zustand/vanilla';

export type ConnectionPhase =
  /** Not started, or stopped on purpose. */
  | 'idle'
  /** WebSocket opening / Guacamole handshake in progress. */
  | 'connecting'
  /** Tunnel open, waiting for the first frame. */
  | 'waiting'
  /** First frame drawn; input flows. */
  | 'connected'
  /** Connection lost; the next attempt starts at `retryAt`. */
  | 'reconnecting'
  /** Connection ended with an error retrying will not fix; the person must act. */
  | 'failed';

export interface ConnectionError {
  /** The server's message when it sent one, otherwise a description of what happened. */
  message: string;
  /** Guacamole status code (0x0207 = 519, …). */
  status: number;
  /**
   * What is away, when the session can tell: the bridge itself (the page cannot reach it: the
   * ticket request or the socket failed) or the desktop behind a bridge that answered.
   */
  away?: 'bridge' | 'desktop' | undefined;
}

export interface ConnectionData {
  phase: ConnectionPhase;
  /** Attempt number of the current or next connection since the last stable connection (0 = first). */
  attempt: number;
  /** Epoch ms at which the next attempt starts (phase 'reconnecting' only). */
  retryAt: number | null;
  /** The most recent error; kept while reconnecting so the person can see why. */
  lastError: ConnectionError | null;
  /** The tunnel has heard nothing for a while (guacamole-common-js's UNSTABLE state). */
  unstable: boolean;
  /** Epoch ms of the first frame of the current connection. */
  connectedSince: number | null;
}

export interface ConnectionEvents {
  connectAttempted: (attempt: number) => void;
  tunnelOpened: () => void;
  firstFrameReceived: (at: number) => void;
  tunnelStabilityChanged: (unstable: boolean) => void;
  /** An error was reported (server `error` instruction or tunnel failure); the connection is ending. */
  errorReported: (error: ConnectionError) => void;
  /** The connection ended. `retryAt` null means no automatic retry (phase 'failed'). */
  connectionFailed: (retryAt: number | null) => void;
  /** The session was stopped on purpose. */
  sessionStopped: () => void;
}

export type ConnectionState = ConnectionData & ConnectionEvents;

export const INITIAL_CONNECTION: ConnectionData = {
  phase: 'idle',
  attempt: 0,
  retryAt: null,
  lastError: null,
  unstable: false,
  connectedSince: null,
};

export function createConnectionStore(): StoreApi<ConnectionState> {
  return createStore<ConnectionState>()((set) => ({
    ...INITIAL_CONNECTION,
    connectAttempted: (attempt) =>
      set({ phase: 'connecting', attempt, retryAt: null, unstable: false, connectedSince: null }),
    // Late events from a connection that already ended (or was stopped) must not revive it.
    tunnelOpened: () => set((s) => (s.phase === 'connecting' ? { phase: 'waiting' } : s)),
    firstFrameReceived: (at) =>
      set((s) =>
        s.phase === 'connecting' || s.phase === 'waiting'
          ? { phase: 'connected', connectedSince: at, lastError: null }
          : s,
      ),
    tunnelStabilityChanged: (unstable) => set({ unstable }),
    errorReported: (error) => set({ lastError: error }),
    connectionFailed: (retryAt) =>
      set({
        phase: retryAt === null ? 'failed' : 'reconnecting',
        retryAt,
        unstable: false,
        connectedSince: null,
      }),
    sessionStopped: () => set({ ...INITIAL_CONNECTION }),
  }));
}

/** Pick only the event functions from a store, for the session that drives it. */
export function connectionEvents(store: StoreApi<ConnectionState>): ConnectionEvents {
  const s = store.getState();
  return {
    connectAttempted: s.connectAttempted,
    tunnelOpened: s.tunnelOpened,
    firstFrameReceived: s.firstFrameReceived,
    tunnelStabilityChanged: s.tunnelStabilityChanged,
    errorReported: s.errorReported,
    connectionFailed: s.connectionFailed,
    sessionStopped: s.sessionStopped,
  };
}
