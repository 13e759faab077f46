// The signed-in person (GET /api/me) for every page that shows them: read once per page and
// shared; refreshMe() re-reads it after a change (permissions, password) so everything showing
// it updates together. A 401 on the read sends the browser to the sign-in page (net/api.ts).
import type { Me } from '@overlay-companion/protocol';
import { useEffect } from 'react';
import { useStore } from 'zustand';
import { createStore } from 'zustand/vanilla';
import { api } from '../../net/api.js';
import { errorText } from './errors.js';

interface MeState {
  me: Me | null;
  error: string | null;
}

const meStore = createStore<MeState>()(() => ({ me: null, error: null }));
let started = false;

async function read(refresh: boolean): Promise<Me> {
  try {
    const me = await api.me({ refresh });
    meStore.setState({ me, error: null });
    return me;
  } catch (thrown) {
    meStore.setState({ error: errorText(thrown) });
    throw thrown;
  }
}

/** Read the person again and tell every page; resolves with them (rejects when it failed). */
export function refreshMe(): Promise<Me> {
  return read(true);
}

export function useMe(): MeState {
  useEffect(() => {
    if (started) return;
    started = true;
    read(false).catch(() => {
      // Shown through the store's error; a 401 is already on its way to the sign-in page.
    });
  }, []);
  return useStore(meStore);
}
