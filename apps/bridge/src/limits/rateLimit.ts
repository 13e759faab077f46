// Rate limits as token buckets: per MCP session (RATE_LIMITS), and shared by every session of a
// token and every token of a person (SHARED_RATE_LIMITS), so neither more sessions nor more
// tokens buy more calls — nor, in a site of several bridges, more bridges: what one bridge takes
// from a token's and a person's budgets is told to the others (site/sharedLimits.ts), which take
// it from theirs too. The limits live here, in one place.

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

  take(count = 1): void {
    this.refill();
    // Taken elsewhere (another bridge) without asking: the debt is paid back by the refill, and
    // is bounded so that nothing told can lock a budget for longer than one burst takes.
    this.tokens = Math.max(-this.limit.burst, this.tokens - count);
  }

  private refill(): void {
    const now = this.now();
    const elapsed = (now - this.updatedAt) / 1000;
    this.updatedAt = now;
    this.tokens = Math.min(this.limit.burst, this.tokens + elapsed * this.limit.ratePerSecond);
  }
}

/**
 * One token bucket per key (a person, an address), made on first use; at most `maxKeys` are
 * remembered, the least recently used forgotten first (a forgotten key starts with a full bucket).
 */
export class KeyedBuckets {
  private readonly buckets = new Map<string, TokenBucket>();

  constructor(
    private readonly limit: BucketLimit,
    private readonly maxKeys = 10_000,
  ) {}

  /** Takes one token for `key` and returns 0, or returns the ms to wait (taking nothing). */
  take(key: string): number {
    let bucket = this.buckets.get(key);
    if (bucket === undefined) {
      bucket = new TokenBucket(this.limit);
      if (this.buckets.size >= this.maxKeys) {
        const oldest = this.buckets.keys().next().value;
        if (oldest !== undefined) this.buckets.delete(oldest);
      }
    } else {
      this.buckets.delete(key);
    }
    this.buckets.set(key, bucket);
    const wait = bucket.waitMs();
    if (wait === 0) bucket.take();
    return wait;
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

  /** Milliseconds until a call could be taken (0: now), without taking anything. */
  wouldWaitMs(isInput: boolean): number {
    return Math.max(this.all.waitMs(), isInput ? this.input.waitMs() : 0);
  }

  /**
   * Takes a token from every bucket that applies, or none at all when any is empty (a refused
   * call must not use up budget).
   */
  /** Calls another bridge of the site took from this budget (counted, never refused). */
  takenElsewhere(all: number, input: number): void {
    if (all > 0) this.all.take(all);
    if (input > 0) this.input.take(input);
  }

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

/**
 * Limits above the session's: every session of one token, and every token of one person, share
 * one budget each, so opening more sessions (or more tokens) never buys more calls.
 */
export interface SharedLimits {
  token: { all: BucketLimit; input: BucketLimit };
  person: { all: BucketLimit; input: BucketLimit };
}

export const SHARED_RATE_LIMITS: SharedLimits = {
  token: { all: { ratePerSecond: 1000, burst: 2000 }, input: { ratePerSecond: 20, burst: 40 } },
  person: { all: { ratePerSecond: 1500, burst: 3000 }, input: { ratePerSecond: 30, burst: 60 } },
};

/** One call taken from a token's and its person's budgets (what a site's bridges tell each other). */
export interface SharedTake {
  tokenId: string;
  personId: string;
  isInput: boolean;
}

/** Per-token and per-person limiters, made on first use. */
export class SharedRateLimits {
  private readonly byToken = new Map<string, SessionRateLimiter>();
  private readonly byPerson = new Map<string, SessionRateLimiter>();
  private readonly takeListeners = new Set<(take: SharedTake) => void>();

  constructor(private readonly limits: SharedLimits = SHARED_RATE_LIMITS) {}

  /** Told of every call taken here (the site tells the other bridges). */
  onTake(listener: (take: SharedTake) => void): () => void {
    this.takeListeners.add(listener);
    return () => this.takeListeners.delete(listener);
  }

  /** Calls another bridge of the site took from a token's and its person's budgets. */
  takenElsewhere(tokenId: string, personId: string, all: number, input: number): void {
    this.limiter(this.byToken, tokenId, this.limits.token).takenElsewhere(all, input);
    this.limiter(this.byPerson, personId, this.limits.person).takenElsewhere(all, input);
  }

  /**
   * Checks the token's and the person's budgets; takes from both or from neither. The session's
   * own limiter is checked by the caller first.
   */
  tryTake(tokenId: string, personId: string, isInput: boolean): RateDecision {
    const token = this.limiter(this.byToken, tokenId, this.limits.token);
    const person = this.limiter(this.byPerson, personId, this.limits.person);
    const peek = (l: SessionRateLimiter) => l.wouldWaitMs(isInput);
    const tokenWait = peek(token);
    const personWait = peek(person);
    if (tokenWait > 0 || personWait > 0) {
      const tokenBound = tokenWait >= personWait;
      return {
        ok: false,
        retryAfterMs: Math.max(tokenWait, personWait),
        limit: tokenBound ? 'all sessions of this token' : 'all tokens of this person',
      };
    }
    token.tryTake(isInput);
    person.tryTake(isInput);
    for (const listener of this.takeListeners) listener({ tokenId, personId, isInput });
    return { ok: true };
  }

  private limiter(
    map: Map<string, SessionRateLimiter>,
    key: string,
    limits: { all: BucketLimit; input: BucketLimit },
  ): SessionRateLimiter {
    let limiter = map.get(key);
    if (limiter === undefined) {
      limiter = new SessionRateLimiter(limits);
      map.set(key, limiter);
    }
    return limiter;
  }
}
