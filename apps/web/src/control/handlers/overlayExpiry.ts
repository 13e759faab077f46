// When temporary overlays go: one timer per distinct expiry time (a batch drawn with one
// temporary_ms shares one timer, however many overlays it holds), and the ids due at that time
// handed back together so the service removes them in one store update. Forgetting an id
// (removed by hand, cleared) is O(1); a timer left with no ids is cancelled.

export class ExpiryTimers {
  readonly #buckets = new Map<number, { timer: ReturnType<typeof setTimeout>; ids: Set<string> }>();
  readonly #dueAt = new Map<string, number>();
  readonly #expire: (ids: string[]) => void;
  readonly #now: () => number;

  /** `expire` gets the ids whose time came, in the order they were armed. */
  constructor(expire: (ids: string[]) => void, now: () => number) {
    this.#expire = expire;
    this.#now = now;
  }

  /** How many overlays wait to expire. */
  get size(): number {
    return this.#dueAt.size;
  }

  /** Expire `id` at `expiresAt` (epoch ms; at once, on the next task, when already past). */
  arm(id: string, expiresAt: number): void {
    this.forget(id);
    let bucket = this.#buckets.get(expiresAt);
    if (bucket === undefined) {
      const ids = new Set<string>();
      const timer = setTimeout(() => this.#fire(expiresAt), Math.max(0, expiresAt - this.#now()));
      bucket = { timer, ids };
      this.#buckets.set(expiresAt, bucket);
    }
    bucket.ids.add(id);
    this.#dueAt.set(id, expiresAt);
  }

  /** `id` is gone some other way: its timer must not remove it (or anything) later. */
  forget(id: string): void {
    const at = this.#dueAt.get(id);
    if (at === undefined) return;
    this.#dueAt.delete(id);
    const bucket = this.#buckets.get(at);
    if (bucket === undefined) return;
    bucket.ids.delete(id);
    if (bucket.ids.size === 0) {
      clearTimeout(bucket.timer);
      this.#buckets.delete(at);
    }
  }

  forgetAll(): void {
    for (const bucket of this.#buckets.values()) clearTimeout(bucket.timer);
    this.#buckets.clear();
    this.#dueAt.clear();
  }

  #fire(at: number): void {
    const bucket = this.#buckets.get(at);
    if (bucket === undefined) return;
    this.#buckets.delete(at);
    for (const id of bucket.ids) this.#dueAt.delete(id);
    this.#expire([...bucket.ids]);
  }
}
