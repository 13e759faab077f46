// The transfers this page started, for the files panel and the fleet's tiles: each one's desktop,
// direction, file, bytes so far, and how it ended (done, cancelled, or the bridge's sentence why
// not). Holds data only; files/transfers.ts starts them and reports here.
import { createStore, type StoreApi } from 'zustand/vanilla';

export type TransferDirection = 'upload' | 'download';
export type TransferStatus = 'running' | 'done' | 'cancelled' | 'failed';

export interface Transfer {
  id: number;
  desktopId: string;
  direction: TransferDirection;
  name: string;
  size: number;
  loaded: number;
  status: TransferStatus;
  /** Why it failed, in words to show. */
  error?: string | undefined;
  /** Hex SHA-256 the bridge computed, once done. */
  sha256?: string | undefined;
}

/** Finished transfers kept on show beyond this many are dropped, oldest first. */
const KEEP_FINISHED = 20;

export interface TransferState {
  transfers: readonly Transfer[];
  transferStarted: (t: Omit<Transfer, 'id' | 'loaded' | 'status'>) => number;
  transferProgressed: (id: number, loaded: number) => void;
  transferEnded: (
    id: number,
    end: { status: Exclude<TransferStatus, 'running'>; error?: string; sha256?: string },
  ) => void;
  finishedCleared: () => void;
}

export function createTransferStore(): StoreApi<TransferState> {
  let counter = 0;
  const update = (id: number, patch: Partial<Transfer>) => (s: TransferState) => ({
    transfers: s.transfers.map((t) => (t.id === id ? { ...t, ...patch } : t)),
  });
  return createStore<TransferState>()((set) => ({
    transfers: [],
    transferStarted: (t) => {
      counter += 1;
      const id = counter;
      set((s) => {
        const finished = s.transfers.filter((x) => x.status !== 'running');
        const drop = new Set(finished.slice(0, Math.max(0, finished.length - KEEP_FINISHED)));
        return {
          transfers: [
            ...s.transfers.filter((x) => !drop.has(x)),
            { ...t, id, loaded: 0, status: 'running' },
          ],
        };
      });
      return id;
    },
    transferProgressed: (id, loaded) => set(update(id, { loaded })),
    transferEnded: (id, end) => set(update(id, end)),
    finishedCleared: () =>
      set((s) => ({ transfers: s.transfers.filter((t) => t.status === 'running') })),
  }));
}

export const transferStore = createTransferStore();
