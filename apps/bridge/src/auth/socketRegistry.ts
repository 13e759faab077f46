// Every open WebSocket (viewer control channel, Guacamole tunnel, overlay feed) with the person
// and sign-in session (or API token, for a program's overlay feed) it was opened under, so that signing out, a session expiring, or a person being
// disabled or removed closes exactly their sockets at once — a cookie that no longer works
// must not leave a live desktop behind. Also counts each person's tunnels for the cap.
import { openKey, type OpenElsewhere } from '../limits/openElsewhere.js';
export interface RegisteredSocket {
  personId: string;
  sessionIdHash: string;
  kind: 'viewer' | 'tunnel' | 'overlays' | 'fleet';
  close(reason: string): void;
}

/** The registry key of sockets a program opened with an API token: revoking it closes them. */
export function tokenSocketKey(tokenId: string): string {
  return `token:${tokenId}`;
}

export class SocketRegistry {
  private readonly sockets = new Set<RegisteredSocket>();

  /** Adds a socket; the returned function removes it (call it when the socket closes). */
  add(socket: RegisteredSocket): () => void {
    this.sockets.add(socket);
    return () => this.sockets.delete(socket);
  }

  /** In a site: the tunnels the other bridges hold open (site/sharedCaps.ts). */
  elsewhere: OpenElsewhere | undefined;

  /** Each person's open tunnels here, by openKey (what a site's other bridges are told). */
  tunnelCounts(): Record<string, number> {
    const counts: Record<string, number> = {};
    for (const s of this.sockets)
      if (s.kind === 'tunnel') {
        const key = openKey.personTunnels(s.personId);
        counts[key] = (counts[key] ?? 0) + 1;
      }
    return counts;
  }

  count(personId: string, kind: RegisteredSocket['kind']): number {
    let n = 0;
    for (const s of this.sockets) if (s.personId === personId && s.kind === kind) n += 1;
    return n;
  }

  /** Sign-in sessions that have a socket open right now (kept alive while they do). */
  liveSessions(): Set<string> {
    return new Set([...this.sockets].map((s) => s.sessionIdHash));
  }

  closeSessions(idHashes: readonly string[], reason: string): number {
    const ended = new Set(idHashes);
    return this.closeWhere((s) => ended.has(s.sessionIdHash), reason);
  }

  closePerson(personId: string, reason: string): number {
    return this.closeWhere((s) => s.personId === personId, reason);
  }

  private closeWhere(match: (s: RegisteredSocket) => boolean, reason: string): number {
    let closed = 0;
    for (const socket of [...this.sockets]) {
      if (!match(socket)) continue;
      this.sockets.delete(socket);
      socket.close(reason);
      closed += 1;
    }
    return closed;
  }
}
