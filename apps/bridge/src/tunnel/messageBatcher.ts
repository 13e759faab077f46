// Groups whole encoded instructions into WebSocket messages. guacamole-common-js does not carry
// a partial instruction over to the next message, so a message must only ever hold complete
// instructions. Batching costs no latency: everything produced while handling one TCP read is
// sent together at the end of that read (a microtask), and a batch is sent at once when it
// reaches the size limit. No timers.

export class MessageBatcher {
  private pending: string[] = [];
  private pendingChars = 0;
  private scheduled = false;

  constructor(
    private readonly sendMessage: (message: string) => void,
    private readonly maxChars: number,
  ) {}

  /** Queues one complete encoded instruction (or several, already whole). */
  push(encoded: string): void {
    if (this.pendingChars > 0 && this.pendingChars + encoded.length > this.maxChars) this.flush();
    this.pending.push(encoded);
    this.pendingChars += encoded.length;
    if (this.pendingChars >= this.maxChars) {
      this.flush();
    } else if (!this.scheduled) {
      this.scheduled = true;
      queueMicrotask(() => {
        this.scheduled = false;
        this.flush();
      });
    }
  }

  flush(): void {
    if (this.pendingChars === 0) return;
    const message = this.pending.length === 1 ? (this.pending[0] ?? '') : this.pending.join('');
    this.pending = [];
    this.pendingChars = 0;
    this.sendMessage(message);
  }

  /** Drops anything queued (the socket it would go to is gone). */
  discard(): void {
    this.pending = [];
    this.pendingChars = 0;
  }
}
