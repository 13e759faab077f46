// Events per second over the last few whole seconds (the frame rates /metrics reports as
// gauges). Counts go into one bucket per second; reading sums the complete seconds of the window,
// so the figure does not jump with where in the current second a scrape lands.
export class RateWindow {
  private readonly buckets = new Map<number, number>();

  constructor(
    private readonly seconds = 5,
    private readonly now: () => number = Date.now,
  ) {}

  add(count = 1): void {
    const second = Math.floor(this.now() / 1000);
    this.buckets.set(second, (this.buckets.get(second) ?? 0) + count);
    if (this.buckets.size > this.seconds + 2) this.prune(second);
  }

  /** Mean events per second over the last `seconds` complete seconds. */
  perSecond(): number {
    const current = Math.floor(this.now() / 1000);
    this.prune(current);
    let sum = 0;
    for (const [second, count] of this.buckets) if (second < current) sum += count;
    return sum / this.seconds;
  }

  private prune(current: number): void {
    for (const second of this.buckets.keys()) {
      if (second < current - this.seconds) this.buckets.delete(second);
    }
  }
}
