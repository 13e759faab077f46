// What the other bridges of a site hold open, for the caps that count across all of them: MCP
// sessions per token and per person (mcp/sessions.ts) and desktop connections per person
// (perimeter/socketTickets.ts). Each bridge tells its own counts to the others
// (site/sharedCaps.ts); what a bridge has not told for STALE_AFTER_MS is forgotten (it died, and
// what it held open went with it). A cap holds across the site give or take what the bridges
// open in the same moment, before they hear of each other.

/** The key of one count: sessions of a token or of a person, tunnels of a person. */
export const openKey = {
  tokenSessions: (tokenId: string): string => `s:t:${tokenId}`,
  personSessions: (personId: string): string => `s:p:${personId}`,
  personTunnels: (personId: string): string => `t:p:${personId}`,
};

/** How often a bridge tells its counts again while it has any (and at once when they change). */
export const OPEN_COUNTS_REFRESH_MS = 10_000;
/** A bridge not heard of for this long holds nothing any more. */
const STALE_AFTER_MS = 3 * OPEN_COUNTS_REFRESH_MS;

export class OpenElsewhere {
  private readonly bridges = new Map<string, { counts: Map<string, number>; at: number }>();

  /** What the other bridges hold open under `key` (openKey). */
  count(key: string): number {
    let n = 0;
    for (const bridge of this.bridges.values()) n += bridge.counts.get(key) ?? 0;
    return n;
  }

  /** All that `bridge` holds open now (replacing what it told before). */
  told(bridge: string, counts: Record<string, number>, now = Date.now()): void {
    const entries = Object.entries(counts);
    if (entries.length === 0) this.bridges.delete(bridge);
    else this.bridges.set(bridge, { counts: new Map(entries), at: now });
  }

  /** Forgets the bridges that went quiet (died). */
  forgetQuiet(now = Date.now()): void {
    for (const [bridge, told] of this.bridges)
      if (now - told.at > STALE_AFTER_MS) this.bridges.delete(bridge);
  }
}
