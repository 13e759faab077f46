// The app's store instances and React hooks over them. Tests create their own stores with the
// factories; the running app uses these singletons.
import { useStore } from 'zustand';
import { useShallow } from 'zustand/react/shallow';
import { createConnectionStore, type ConnectionData, type ConnectionState } from './connection.js';
import { createDisplayStore, type DisplayState } from './display.js';

export const connectionStore = createConnectionStore();
export const displayStore = createDisplayStore();

export function useConnection<T>(selector: (state: ConnectionState) => T): T {
  return useStore(connectionStore, selector);
}

/** The connection's data without its event functions (what describeConnection reads). */
export function useConnectionData(): ConnectionData {
  return useConnection(
    useShallow(({ phase, attempt, retryAt, lastError, unstable, connectedSince }) => ({
      phase,
      attempt,
      retryAt,
      lastError,
      unstable,
      connectedSince,
    })),
  );
}

export function useDisplay<T>(selector: (state: DisplayState) => T): T {
  return useStore(displayStore, selector);
}
