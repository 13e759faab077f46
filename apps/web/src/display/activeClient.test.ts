// activeClient: replay on subscribe, change notifications and unsubscribe.
import type Guacamole from 'guacamole-common-js';
import { afterEach, describe, expect, it } from 'vitest';
import { getActiveClient, onActiveClientChange, setActiveClient } from './activeClient.js';

// Only identity matters here; the module never calls the client.
const fakeClient = (name: string) => ({ name }) as unknown as Guacamole.Client;

afterEach(() => setActiveClient(null));

describe('activeClient', () => {
  it('replays the current client and reports changes until unsubscribed', () => {
    const a = fakeClient('a');
    const b = fakeClient('b');
    setActiveClient(a);
    const seen: (Guacamole.Client | null)[] = [];
    const off = onActiveClientChange((c) => seen.push(c));
    setActiveClient(a); // unchanged: no notification
    setActiveClient(null);
    setActiveClient(b);
    off();
    setActiveClient(null);
    expect(seen).toEqual([a, null, b]);
    expect(getActiveClient()).toBeNull();
  });
});
