// The person's connected AI clients, as their viewer shows them: the live MCP sessions acting
// for them, grouped by AiClientRef.key (one client reconnecting or running several sessions is
// one entry), with how many sessions, since when and the latest call. Only ever computed from
// one person's sessions, so another person's clients cannot appear.
import {
  MAX_LISTED_AI_CLIENTS,
  aiClientRef,
  type BridgeToViewer,
} from '@overlay-companion/protocol';
import type { SessionState } from './toolkit.js';

type AiClientsMessage = Extract<BridgeToViewer, { type: 'ai_clients' }>;

export function aiClientsMessage(
  sessions: Iterable<Pick<SessionState, 'principal' | 'clientName' | 'connectedAt' | 'lastCallAt'>>,
): AiClientsMessage {
  const byKey = new Map<string, AiClientsMessage['clients'][number]>();
  for (const session of sessions) {
    const { principal } = session;
    const client = aiClientRef(principal.tokenId, principal.tokenName, session.clientName());
    const entry = byKey.get(client.key);
    if (entry === undefined) {
      byKey.set(client.key, {
        client,
        sessions: 1,
        connected_since: session.connectedAt,
        last_call_at: session.lastCallAt,
      });
      continue;
    }
    entry.sessions += 1;
    entry.connected_since = Math.min(entry.connected_since, session.connectedAt);
    if (session.lastCallAt !== null)
      entry.last_call_at = Math.max(entry.last_call_at ?? 0, session.lastCallAt);
  }
  // Most recently active first; the cap keeps the message bounded.
  const clients = [...byKey.values()]
    .sort((a, b) => (b.last_call_at ?? b.connected_since) - (a.last_call_at ?? a.connected_since))
    .slice(0, MAX_LISTED_AI_CLIENTS);
  return { type: 'ai_clients', clients };
}
