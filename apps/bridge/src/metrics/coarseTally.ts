// Counts that must not show when each event happened. A tunnel's bytes to the desktop grow by
// a few dozen bytes per key typed (and its frames to the browser by one per echoed character),
// so a counter read every 100 ms would give anyone who may scrape a password's length and
// rhythm. A CoarseTally collects the events and lets them out only in whole steps (the rest is
// carried over), and at most once per interval: a scrape sees totals, never single keys.
export class CoarseTally {
  private pending = 0;
  private lastTaken: number;

  constructor(
    private readonly step: number,
    private readonly intervalMs: number,
    private readonly now: () => number = Date.now,
  ) {
    this.lastTaken = now();
  }

  add(count: number): void {
    this.pending += count;
  }

  /** What may be published now, in whole steps (maybe 0); undefined within the interval. */
  take(): number | undefined {
    const now = this.now();
    if (now - this.lastTaken < this.intervalMs) return undefined;
    this.lastTaken = now;
    const out = Math.floor(this.pending / this.step) * this.step;
    this.pending -= out;
    return out;
  }
}
