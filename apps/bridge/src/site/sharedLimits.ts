// The rate limits shared by a token's sessions and a person's tokens (limits/rateLimit.ts), shared
// across the bridges of a site: what each bridge takes is added up per token for a moment and told
// to the others in one message (`rate_taken`), which take it from their own budgets. A client
// spreading its sessions over the bridges gets the token's budget once, not once per bridge —
// give or take what the bridges take in the same FLUSH_MS before they hear of each other.
import type { SharedRateLimits } from '../limits/rateLimit.js';
import type { SiteBus } from './siteBus.js';

/** How long takes are added up before they are told (one message per bridge at most this often). */
const FLUSH_MS = 20;
/** Tokens told per message at most (more wait for the next). */
const MAX_ENTRIES = 500;

interface Taken {
  tokenId: string;
  personId: string;
  all: number;
  input: number;
}

export class SharedLimitsOnBus {
  private pending = new Map<string, Taken>();
  private timer: NodeJS.Timeout | undefined;
  private readonly off: () => void;

  constructor(
    private readonly bus: SiteBus,
    private readonly limits: SharedRateLimits,
  ) {
    this.off = limits.onTake(({ tokenId, personId, isInput }) => {
      const key = `${tokenId}\0${personId}`;
      const entry = this.pending.get(key) ?? { tokenId, personId, all: 0, input: 0 };
      entry.all += 1;
      if (isInput) entry.input += 1;
      this.pending.set(key, entry);
      this.timer ??= setTimeout(() => this.flush(), FLUSH_MS);
    });
  }

  /** Takes that another bridge told. */
  takenElsewhere(entries: readonly Taken[]): void {
    for (const e of entries) this.limits.takenElsewhere(e.tokenId, e.personId, e.all, e.input);
  }

  close(): void {
    this.off();
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.flush();
  }

  private flush(): void {
    this.timer = undefined;
    const entries = [...this.pending.values()];
    this.pending = new Map(
      entries.slice(MAX_ENTRIES).map((e) => [`${e.tokenId}\0${e.personId}`, e]),
    );
    if (this.pending.size > 0) this.timer = setTimeout(() => this.flush(), FLUSH_MS);
    if (entries.length > 0)
      void this.bus.publish({ type: 'rate_taken', entries: entries.slice(0, MAX_ENTRIES) });
  }
}
