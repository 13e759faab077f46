// The live Guacamole client, for code outside the display (tool-call handlers, screenshot,
// clipboard) that needs sendMouseState / sendKeyEvent / getDisplay().flatten() without going
// through React. guacSession publishes each new client here and null when it goes away.
import type Guacamole from 'guacamole-common-js';

export type ClientListener = (client: Guacamole.Client | null) => void;

let current: Guacamole.Client | null = null;
const listeners = new Set<ClientListener>();

/** The connected (or connecting) client, or null between attempts. */
export function getActiveClient(): Guacamole.Client | null {
  return current;
}

/** Called with the current client at once and on every change; returns an unsubscribe function. */
export function onActiveClientChange(listener: ClientListener): () => void {
  listeners.add(listener);
  listener(current);
  return () => {
    listeners.delete(listener);
  };
}

/** Only the session calls this. */
export function setActiveClient(client: Guacamole.Client | null): void {
  if (client === current) return;
  current = client;
  for (const listener of [...listeners]) listener(client);
}
