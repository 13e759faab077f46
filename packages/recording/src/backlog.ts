// The recording writer's bounded queue: what feed(), setMasks(), hold() and the quiet timer hand
// the writer is queued here and worked off in order, one item at a time, off the caller's turn —
// so the live stream never waits on decoding, encoding or the disk. The queue holds at most `max`
// items; push() refuses beyond that (the writer then stops the recording rather than grow
// without bound). Nothing here knows what an item is.

export class Backlog<T> {
  private items: (T | undefined)[] = [];
  private head = 0;
  private pumping: Promise<void> | undefined;

  /**
   * `work` handles one item (a promise when it must be waited for); `halted` is checked before
   * each item and empties the queue once true; `failed` hears a `work` that threw (the rest of
   * the queue then waits for the next push).
   */
  constructor(
    readonly max: number,
    private readonly work: (item: T) => Promise<void> | undefined,
    private readonly halted: () => boolean,
    private readonly failed: (error: unknown) => void,
  ) {}

  /** Items waiting. */
  get size(): number {
    return this.items.length - this.head;
  }

  /** Queues `item` and starts working if idle; false (nothing queued) when `max` are waiting. */
  push(item: T): boolean {
    if (this.size >= this.max) return false;
    this.items.push(item);
    // pump() clears `pumping` itself, in the same turn as its last look at the queue: an item
    // queued after that look starts a new pump (cleared a turn later, it would wait for the next
    // push, or be left behind by the writer's close()).
    this.pumping ??= Promise.resolve().then(() => this.pump());
    return true;
  }

  /** Forgets everything waiting. */
  clear(): void {
    this.items = [];
    this.head = 0;
  }

  /** Resolves once everything queued so far was worked off. */
  async idle(): Promise<void> {
    while (this.pumping) await this.pumping;
  }

  private async pump(): Promise<void> {
    try {
      while (this.head < this.items.length && !this.halted()) {
        const item = this.items[this.head] as T;
        this.items[this.head++] = undefined;
        if (this.head > 4096 && this.head * 2 > this.items.length) {
          this.items = this.items.slice(this.head);
          this.head = 0;
        }
        // Only what must be waited for is awaited: the items' order against the disk's
        // callbacks stays what it is when nothing is pending.
        const pending = this.work(item);
        if (pending) await pending;
      }
    } catch (error) {
      this.failed(error);
    }
    if (this.halted()) this.clear();
    this.pumping = undefined;
  }
}
