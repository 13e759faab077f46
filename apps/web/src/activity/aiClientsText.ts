// Words for the connected AI clients in the chrome: who (client name and token), how many, and
// how long ago the latest call was. Pure, so the wording is tested.
import type { ConnectedAiClient } from '../store/control.js';
import { ago } from '../pages/common/time.js';

function one(c: ConnectedAiClient, now: number): string {
  const last = c.last_call_at === null ? 'no calls yet' : `last call ${ago(c.last_call_at, now)}`;
  return `${c.client.name} (token “${c.client.token}”) · ${last}`;
}

/** The short label: nobody, the one client, or how many. */
export function aiClientsLabel(clients: readonly ConnectedAiClient[], now: number): string {
  const [first] = clients;
  if (first === undefined) return 'No AI connected';
  if (clients.length === 1) return one(first, now);
  return `${clients.length} AI clients connected`;
}

/** The tooltip: every client on its own line. */
export function aiClientsTitle(clients: readonly ConnectedAiClient[], now: number): string {
  if (clients.length === 0) return 'No AI client is connected to the bridge with your tokens.';
  return clients.map((c) => one(c, now)).join('\n');
}
