// The caps on open MCP sessions (per token, per person) and desktop connections (per person),
// counted across the bridges of a site: each bridge tells the others what it holds open
// (`open_counts`, all its counts in one message) when that changes — looked at every CHECK_MS —
// and again every OPEN_COUNTS_REFRESH_MS while it holds anything; the others add it to their own
// when they check a cap (limits/openElsewhere.ts). A bridge that closes tells them it holds
// nothing; one that dies is forgotten once it has been quiet for a while.
import { OPEN_COUNTS_REFRESH_MS, OpenElsewhere } from '../limits/openElsewhere.js';
import type { SocketRegistry } from '../auth/socketRegistry.js';
import type { McpSessions } from '../mcp/sessions.js';
import type { SiteEvent } from './messages.js';
import type { SiteBus } from './siteBus.js';

/** How often this bridge looks whether its counts changed (the lag of a cap across bridges). */
const CHECK_MS = 200;

export class SharedCapsOnBus {
  private readonly elsewhere = new OpenElsewhere();
  private readonly timer: NodeJS.Timeout;
  private last = '{}';
  private toldAt = 0;

  constructor(
    private readonly bus: SiteBus,
    private readonly sessions: McpSessions,
    private readonly sockets: SocketRegistry,
  ) {
    sessions.elsewhere = this.elsewhere;
    sockets.elsewhere = this.elsewhere;
    this.timer = setInterval(() => this.check(), CHECK_MS);
    this.timer.unref();
  }

  /** What another bridge holds open now. */
  told(event: Extract<SiteEvent, { type: 'open_counts' }>): void {
    this.elsewhere.told(event.from, event.counts);
  }

  close(): void {
    clearInterval(this.timer);
    this.sessions.elsewhere = undefined;
    this.sockets.elsewhere = undefined;
    if (this.last !== '{}') void this.bus.publish({ type: 'open_counts', counts: {} });
  }

  private check(): void {
    const now = Date.now();
    this.elsewhere.forgetQuiet(now);
    const counts = { ...this.sessions.openCounts(), ...this.sockets.tunnelCounts() };
    const text = JSON.stringify(counts);
    const stale = text !== '{}' && now - this.toldAt >= OPEN_COUNTS_REFRESH_MS;
    if (text === this.last && !stale) return;
    this.last = text;
    this.toldAt = now;
    void this.bus.publish({ type: 'open_counts', counts });
  }
}
