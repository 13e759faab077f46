// Brute-force protection for sign-in, as Apache Guacamole does it: after MAX_FAILURES failed
// attempts from one source the source is banned for BAN_MS (Guacamole: 5 failures → 5 minutes),
// and the refusal says until when. A success clears the source's count. In memory (a restart
// forgets bans, as Guacamole's does) and bounded, so a flood of sources cannot grow it forever.

export interface ThrottleLimits {
  maxFailures: number;
  banMs: number;
}

export const DEFAULT_THROTTLE: ThrottleLimits = { maxFailures: 5, banMs: 5 * 60 * 1000 };

/** Sources remembered at most; the oldest are forgotten first. */
const MAX_SOURCES = 10_000;

interface SourceState {
  failures: number;
  /** When the failures started counting (they are forgotten after banMs). */
  since: number;
  bannedUntil: number;
}

export type ThrottleCheck =
  { banned: false } | { banned: true; until: number; retryAfterMs: number };

export class SignInThrottle {
  private readonly sources = new Map<string, SourceState>();

  constructor(
    readonly limits: ThrottleLimits = DEFAULT_THROTTLE,
    private readonly now: () => number = Date.now,
  ) {}

  check(source: string): ThrottleCheck {
    const state = this.sources.get(source);
    const now = this.now();
    if (state === undefined || state.bannedUntil <= now) return { banned: false };
    return { banned: true, until: state.bannedUntil, retryAfterMs: state.bannedUntil - now };
  }

  /** Counts a failure; returns the ban when this failure started one. */
  failed(source: string): ThrottleCheck {
    const now = this.now();
    let state = this.sources.get(source);
    if (
      state === undefined ||
      (state.bannedUntil <= now && now - state.since > this.limits.banMs)
    ) {
      state = { failures: 0, since: now, bannedUntil: 0 };
    }
    state.failures += 1;
    if (state.failures >= this.limits.maxFailures) {
      state.bannedUntil = now + this.limits.banMs;
      state.failures = 0;
      state.since = now;
    }
    // Re-insert so the Map's order is least recently failed first.
    this.sources.delete(source);
    this.sources.set(source, state);
    while (this.sources.size > MAX_SOURCES) {
      const oldest = this.sources.keys().next().value;
      if (oldest === undefined) break;
      this.sources.delete(oldest);
    }
    return this.check(source);
  }

  succeeded(source: string): void {
    this.sources.delete(source);
  }
}

/** "try again at 14:05:09 UTC (in 300 s)" */
export function banMessage(until: number, now = Date.now()): string {
  const at = new Date(until).toISOString().slice(11, 19);
  return `Too many failed sign-ins from your address. Try again at ${at} UTC (in ${Math.ceil((until - now) / 1000)} s).`;
}
