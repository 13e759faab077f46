// Per-session rate limits as token buckets. The limits live in RATE_LIMITS (one place); every
// MCP session gets its own SessionRateLimiter so one noisy client cannot starve the others.

export interface BucketLimit {
  /** Tokens added per second. */
  ratePerSecond: number;
  /** Bucket size: how many calls may arrive at once after a quiet period. */
  burst: number;
}

export const RATE_LIMITS = {
  /** Every tool call. */
  all: { ratePerSecond: 100, burst: 200 },
  /** Calls that act on the desktop (click, type, keys, scroll, drag, move, clipboard). */
  input: { ratePerSecond: 10, burst: 20 },
} as const satisfies Record<string, BucketLimit>;

export class TokenBucket {
  private tokens: number;
  private updatedAt: number;

  constructor(
    private readonly limit: BucketLimit,
    private readonly now: () => number = () => performance.now(),
  ) {
    this.tokens = limit.burst;
    this.updatedAt = now();
  }

  /** Milliseconds until one token is available; 0 when one is available now. */
  waitMs(): number {
    this.refill();
    if (this.tokens >= 1) return 0;
    return Math.ceil(((1 - this.tokens) / this.limit.ratePerSecond) * 1000);
  }

  take(): void {
    this.refill();
    this.tokens -= 1;
  }

  private refill(): void {
    const now = this.now();
    const elapsed = (now - this.updatedAt) / 1000;
    this.updatedAt = now;
    this.tokens = Math.min(this.limit.burst, this.tokens + elapsed * this.limit.ratePerSecond);
  }
}

export type RateDecision = { ok: true } | { ok: false; retryAfterMs: number; limit: string };

export class SessionRateLimiter {
  private readonly all: TokenBucket;
  private readonly input: TokenBucket;

  constructor(
    private readonly limits: { all: BucketLimit; input: BucketLimit } = RATE_LIMITS,
    now?: () => number,
  ) {
    this.all = new TokenBucket(limits.all, now);
    this.input = new TokenBucket(limits.input, now);
  }

  /**
   * Takes a token from every bucket that applies, or none at all when any is empty (a refused
   * call must not use up budget).
   */
  tryTake(isInput: boolean): RateDecision {
    const allWait = this.all.waitMs();
    const inputWait = isInput ? this.input.waitMs() : 0;
    if (allWait > 0 || inputWait > 0) {
      const inputBound = inputWait >= allWait;
      const limit = inputBound ? this.limits.input : this.limits.all;
      return {
        ok: false,
        retryAfterMs: Math.max(allWait, inputWait),
        limit: `${inputBound ? 'input actions' : 'tool calls'}: ${limit.ratePerSecond}/s, burst ${limit.burst}`,
      };
    }
    this.all.take();
    if (isInput) this.input.take();
    return { ok: true };
  }
}
