// The person's connected AI clients, as their viewer shows them: the live MCP sessions acting
// for them, grouped by AiClientRef.key (one client reconnecting or running several sessions is
// one entry), with how many sessions, since when and the latest call. Only ever computed from
// one person's sessions, so another person's clients cannot appear. In a site, the lists of the
// other bridges' sessions on the desktop are merged in (mergeAiClients) the same way.
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
  const entries = [...sessions].map((session) => ({
    client: aiClientRef(
      session.principal.tokenId,
      session.principal.tokenName,
      session.clientName(),
    ),
    sessions: 1,
    connected_since: session.connectedAt,
    last_call_at: session.lastCallAt,
  }));
  return mergeAiClients([entries]);
}

/** One list of several (this bridge's and the other bridges' of a site), by client key. */
export function mergeAiClients(lists: Iterable<AiClientsMessage['clients']>): AiClientsMessage {
  const byKey = new Map<string, AiClientsMessage['clients'][number]>();
  for (const list of lists)
    for (const entry of list) {
      const seen = byKey.get(entry.client.key);
      if (seen === undefined) {
        byKey.set(entry.client.key, { ...entry });
        continue;
      }
      seen.sessions = Math.min(1000, seen.sessions + entry.sessions);
      seen.connected_since = Math.min(seen.connected_since, entry.connected_since);
      if (entry.last_call_at !== null)
        seen.last_call_at = Math.max(seen.last_call_at ?? 0, entry.last_call_at);
    }
  return sorted(byKey.values());
}

function sorted(entries: Iterable<AiClientsMessage['clients'][number]>): AiClientsMessage {
  // Most recently active first; the cap keeps the message bounded.
  const clients = [...entries]
    .sort((a, b) => (b.last_call_at ?? b.connected_since) - (a.last_call_at ?? a.connected_since))
    .slice(0, MAX_LISTED_AI_CLIENTS);
  return { type: 'ai_clients', clients };
}
